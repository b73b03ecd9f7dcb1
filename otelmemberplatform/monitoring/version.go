package monitoring

// Version is this module's release version, tagged as
// otelmemberplatform/monitoring/v<Version>. It is released apart from the
// SDK's root module and from otelmemberplatform, whose metrics its rules
// and dashboard read.
const Version = "0.1.1"
