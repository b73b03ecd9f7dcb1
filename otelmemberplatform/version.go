package otelmemberplatform

// Version is this module's release version, tagged as
// otelmemberplatform/v<Version>. It is released apart from the SDK's root
// module (whose version is memberplatform.Version), and it is the
// instrumentation scope version of the tracer and the meter, so a backend
// tells which instrumentation produced a span or a metric.
const Version = "0.2.1"
