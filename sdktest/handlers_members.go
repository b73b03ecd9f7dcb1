package sdktest

import (
	"net/http"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/validate"
)

func (s *Server) upsertMemberAddress(r *http.Request, body []byte) (int, any, *apiError) {
	memberID := r.PathValue("memberId")
	if !validate.UUID(memberID) {
		return 0, nil, newError("bad-request", "Validation failed", fieldError{pointer: "/memberId", message: "must be a UUID"})
	}
	o, e := parseObject(body, "addressFull", "addressLineOne", "addressLineTwo", "state", "suburb", "postcode", "country")
	if e != nil {
		e.detail = "Validation failed"
		return 0, nil, e
	}
	vals := map[string]*string{}
	var fs []fieldError
	lineTwoNull := false
	for _, k := range []string{"addressFull", "addressLineOne", "addressLineTwo", "state", "suburb", "postcode", "country"} {
		v, present, isNull, te := o.str(k)
		required := k != "addressFull" && k != "addressLineTwo"
		switch {
		case te != nil:
			fs = append(fs, *te)
		case isNull && k == "addressLineTwo":
			lineTwoNull = true
		case isNull:
			fs = append(fs, fieldError{pointer: "/" + k, message: "must be a string, not null"})
		case !present && required:
			fs = append(fs, fieldError{pointer: "/" + k, message: "is required"})
		case present && required && validate.Blank(v):
			fs = append(fs, fieldError{pointer: "/" + k, message: "must not be empty"})
		case present:
			vals[k] = &v
		}
	}
	if len(fs) > 0 {
		return 0, nil, newError("bad-request", "Validation failed", fs...)
	}
	return withRecord(s, s.members, memberID, newError("not-found", "member "+memberID+" not found"), func(a *MemberAddress) (int, any, *apiError) {
		now := s.now().Format(time.RFC3339)
		status := http.StatusOK
		if a == nil {
			status = http.StatusCreated
			a = &MemberAddress{ID: s.newUUIDLocked(), TenantID: s.cfg.tenantID, CreatedDate: &now}
			s.members[memberID] = a
		}
		set := func(dst **string, k string) {
			if v := vals[k]; v != nil {
				cp := *v
				*dst = &cp
			}
		}
		set(&a.AddressFull, "addressFull")
		set(&a.AddressLineOne, "addressLineOne")
		set(&a.AddressLineTwo, "addressLineTwo")
		if lineTwoNull {
			a.AddressLineTwo = nil
		}
		set(&a.State, "state")
		set(&a.Suburb, "suburb")
		set(&a.Postcode, "postcode")
		set(&a.Country, "country")
		a.LastModifiedDate = &now
		return status, *a, nil
	})
}
