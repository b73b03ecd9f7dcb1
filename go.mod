module github.com/memberplatform/memberplatform-go

go 1.26.0

require (
	github.com/aws/aws-sdk-go-v2 v1.47.7
	github.com/aws/aws-sdk-go-v2/credentials v1.20.15
	github.com/google/go-querystring v1.2.0
	github.com/hashicorp/go-cleanhttp v0.5.2
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/jarcoal/httpmock v1.4.2
	github.com/oapi-codegen/nullable v1.1.0
	golang.org/x/sync v0.24.0
	golang.org/x/time v0.16.0
)

require github.com/aws/smithy-go v1.28.8 // indirect
