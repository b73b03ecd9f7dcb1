package payments_test

import "github.com/memberplatform/memberplatform-go/internal/areatest"

const (
	baseURL = areatest.BaseURL
	token   = areatest.Token
	pmID    = "3f2b1c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
	acctID  = "9a8b7c6d-5e4f-4321-8765-0fedcba98765"
)
