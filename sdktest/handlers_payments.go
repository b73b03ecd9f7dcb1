package sdktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"time"

	"github.com/memberplatform/memberplatform-go/internal/validate"
)

// The contract's patterns are checked with the SDK's own checks
// (internal/validate); the fake adds only its choice for expDate, whose
// request format the contract leaves open.
var (
	expDateMonthYear      = regexp.MustCompile(`^(0[1-9]|1[0-2])/([0-9]{4})$`) // MM/YYYY, as the resource reports
	expDateMonthShortYear = regexp.MustCompile(`^(0[1-9]|1[0-2])/([0-9]{2})$`) // MM/YY, as printed on cards
	expDateISOYearMonth   = regexp.MustCompile(`^([0-9]{4})-(0[1-9]|1[0-2])$`) // YYYY-MM, ISO 8601
)

// expDateFormats names the accepted request formats in field errors.
const expDateFormats = "must be MM/YYYY, MM/YY or YYYY-MM, such as 04/2031"

// normalizeExpDate turns an expDate in one of the accepted request formats
// into MM/YYYY, the format the resource reports; ok is false for any other
// string. Two-digit years are 20YY: card expiry dates lie in the future.
func normalizeExpDate(s string) (mmyyyy string, ok bool) {
	if expDateMonthYear.MatchString(s) {
		return s, true
	}
	if m := expDateMonthShortYear.FindStringSubmatch(s); m != nil {
		return m[1] + "/20" + m[2], true
	}
	if m := expDateISOYearMonth.FindStringSubmatch(s); m != nil {
		return m[2] + "/" + m[1], true
	}
	return "", false
}

func (s *Server) updatePaymentMethod(r *http.Request, body []byte) (int, any, *apiError) {
	id := r.PathValue("id")
	if !validate.UUID(id) {
		return 0, nil, newError("bad-request", "payment method id must be a UUID")
	}
	o, e := parseObject(body, "setAsPrimary", "expDate")
	if e != nil {
		return 0, nil, e
	}
	var fs []fieldError
	var primary *bool
	if raw, ok := o["setAsPrimary"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) != nil || string(bytes.TrimSpace(raw)) == "null" {
			fs = append(fs, fieldError{pointer: "/setAsPrimary", message: "must be a boolean"})
		} else {
			primary = &b
		}
	}
	exp, expPresent, expNull, te := o.str("expDate")
	switch {
	case te != nil:
		fs = append(fs, *te)
	case expNull:
		fs = append(fs, fieldError{pointer: "/expDate", message: "must be a string, not null"})
	case expPresent:
		var ok bool
		if exp, ok = normalizeExpDate(exp); !ok {
			fs = append(fs, fieldError{pointer: "/expDate", message: expDateFormats})
		}
	}
	if len(fs) > 0 {
		return 0, nil, newError("bad-request", "request body failed validation", fs...)
	}
	missing := newError("not-implemented", "updating payment method "+id+" is not implemented in this environment")
	return withRecord(s, s.paymentMethods, id, missing, func(pm *PaymentMethod) (int, any, *apiError) {
		if primary != nil {
			if *primary {
				s.clearPrimaryLocked(pm.BillingAccountID)
			}
			pm.Primary = *primary
		}
		if expPresent {
			pm.ExpDate = exp
		}
		pm.UpdatedAt = s.now()
		// The SDK's own type, with whole-second UTC timestamps as the
		// platform reports them (a seeded time may carry fractions and
		// another zone).
		out := *pm
		out.CreatedAt, out.UpdatedAt = pm.CreatedAt.UTC().Truncate(time.Second), pm.UpdatedAt.UTC().Truncate(time.Second)
		return http.StatusOK, out, nil
	})
}
