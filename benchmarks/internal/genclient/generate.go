// Package genclient is the "generated" contender of the benchmarks: the
// client oapi-codegen v2 generates from the SDK's api/openapi.yaml, used
// as is. client.gen.go is generated; do not edit it. Regenerate with
// go generate ./... from the benchmarks module.
package genclient

//go:generate go run github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2 -config oapi-codegen.yaml ../../../api/openapi.yaml
