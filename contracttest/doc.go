// Package contracttest checks the SDK and its fake platform against the
// contract as this SDK understands it (api/openapi.yaml): every request the
// SDK sends and every response package sdktest returns is validated with
// github.com/getkin/kin-openapi.
//
// It is a module of its own so that kin-openapi and its dependencies stay
// out of the module graph of code that imports the SDK. Run it from this
// directory: go test -race ./...
package contracttest
