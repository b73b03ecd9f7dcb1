package memberplatform

// Version is the SDK's release version. It is sent in every request's
// User-Agent header as "memberplatform-go/<Version>".
const Version = "0.5.1"
