// Tools for the repository's CI and releases. A module of its own, so that
// their dependencies (golang.org/x/mod) stay out of the SDK's root module.
module github.com/memberplatform/memberplatform-go/tools

go 1.26.0

require golang.org/x/mod v0.43.0
