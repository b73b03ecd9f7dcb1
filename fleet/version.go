package fleet

// Version is this module's release version, tagged as fleet/v<Version>. It
// is released apart from the SDK's root module, whose version is
// memberplatform.Version.
const Version = "0.2.1"
