package customer_test

import "github.com/memberplatform/memberplatform-go/internal/areatest"

const (
	baseURL  = areatest.BaseURL
	token    = areatest.Token
	memberID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
	addrID   = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"
)
