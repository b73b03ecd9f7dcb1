module github.com/memberplatform/memberplatform-go/benchmarks

go 1.26.0

require (
	github.com/google/uuid v1.6.0
	github.com/hashicorp/go-cleanhttp v0.5.2
	github.com/memberplatform/memberplatform-go v0.0.0
	github.com/oapi-codegen/nullable v1.1.0
	github.com/oapi-codegen/runtime v1.8.0
)

require (
	github.com/apapsch/go-jsonmerge/v2 v2.0.0 // indirect
	github.com/aws/aws-sdk-go-v2 v1.47.7 // indirect
	github.com/aws/aws-sdk-go-v2/credentials v1.20.15 // indirect
	github.com/aws/smithy-go v1.28.8 // indirect
	github.com/google/go-querystring v1.2.0 // indirect
	github.com/hashicorp/go-retryablehttp v0.7.8 // indirect
	golang.org/x/sync v0.24.0 // indirect
)

replace github.com/memberplatform/memberplatform-go => ../
