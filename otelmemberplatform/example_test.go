package otelmemberplatform_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/memberplatform/memberplatform-go/accessmgmt"
	"github.com/memberplatform/memberplatform-go/otelmemberplatform"
	"github.com/memberplatform/memberplatform-go/sdktest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A call that the platform answers 503 once, traced: the operation span,
// the token fetch it triggered, and its two attempts, with the retry as an
// event. In production, register a real exporter (OTLP, or stdouttrace to
// print) with the tracer provider instead of the recorder.
func Example() {
	srv := sdktest.Start()
	defer srv.Close()
	srv.AddUser(sdktest.User{ID: "user_01E4ZCR3C56J083X43JQXF3JK5", Email: "ada@example.com"})
	srv.FailNext(1, sdktest.Fault{Operation: sdktest.OpUpdateUser, Status: http.StatusServiceUnavailable})

	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	defer func() { _ = tp.Shutdown(context.Background()) }()

	c := srv.Client(
		otelmemberplatform.WithTracerProvider(tp),
		otelmemberplatform.WithPropagator(propagation.TraceContext{}),
	)
	_, err := c.AccessMgmt.UpdateUser(context.Background(), "user_01E4ZCR3C56J083X43JQXF3JK5",
		accessmgmt.UpdateUserParams{FirstName: new("Ada")})
	if err != nil {
		fmt.Println(err)
		return
	}
	printTree(recorder.Ended())
	// Output:
	// accessmgmt.UpdateUser (internal) memberplatform.area=accessmgmt memberplatform.operation=accessmgmt.UpdateUser
	//   event memberplatform.retry memberplatform.retry.attempt=1 memberplatform.retry.reason=service_unavailable
	//   auth.Token (internal) memberplatform.area=token memberplatform.operation=auth.Token
	//     POST /auth/token (client) http.request.method=POST http.response.status_code=200 url.template=/auth/token
	//   PUT /auth/access-management/users/{userId} (client) error.type=503 http.request.method=PUT http.response.status_code=503 url.template=/auth/access-management/users/{userId}
	//   PUT /auth/access-management/users/{userId} (client) http.request.method=PUT http.request.resend_count=1 http.response.status_code=200 url.template=/auth/access-management/users/{userId}
}

// printTree prints spans as a tree, children in start order, with their
// kind, their attributes sorted by key (server.address and server.port
// left out, and the retry's random delay) and their events.
func printTree(spans []sdktrace.ReadOnlySpan) {
	children := map[string][]sdktrace.ReadOnlySpan{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID().String()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		parent := s.Parent().SpanID().String()
		if !ids[parent] {
			roots = append(roots, s)
			continue
		}
		children[parent] = append(children[parent], s)
	}
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		indent := strings.Repeat("  ", depth)
		fmt.Printf("%s%s (%s)%s\n", indent, s.Name(), s.SpanKind(), formatAttrs(s.Attributes()))
		for _, e := range s.Events() {
			fmt.Printf("%s  event %s%s\n", indent, e.Name, formatAttrs(e.Attributes))
		}
		kids := children[s.SpanContext().SpanID().String()]
		sort.Slice(kids, func(i, j int) bool { return kids[i].StartTime().Before(kids[j].StartTime()) })
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
}

func formatAttrs(attrs []attribute.KeyValue) string {
	var parts []string
	for _, a := range attrs {
		switch a.Key {
		case "server.address", "server.port", "memberplatform.retry.delay":
			continue // the test server's random port; the backoff's jitter
		}
		parts = append(parts, string(a.Key)+"="+a.Value.String())
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}
