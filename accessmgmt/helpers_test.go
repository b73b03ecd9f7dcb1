package accessmgmt_test

import "github.com/memberplatform/memberplatform-go/internal/areatest"

const (
	baseURL = areatest.BaseURL
	token   = areatest.Token
	orgID   = "org_01EHZNVPK3SFK441A1RGBFSHRT"
	userID  = "user_01E4ZCR3C56J083X43JQXF3JK5"
)
