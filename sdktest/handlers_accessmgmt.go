package sdktest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/memberplatform/memberplatform-go/internal/validate"
)

func (s *Server) updateUser(r *http.Request, body []byte) (int, any, *apiError) {
	id := r.PathValue("userId")
	o, e := parseObject(body, "mobileNumber", "email", "firstName", "lastName")
	if e != nil {
		return 0, nil, e
	}
	vals := map[string]*string{}
	var typeErrs, ruleErrs []fieldError
	for _, k := range []string{"mobileNumber", "email", "firstName", "lastName"} {
		v, present, isNull, te := o.str(k)
		switch {
		case te != nil:
			typeErrs = append(typeErrs, *te)
		case isNull:
			typeErrs = append(typeErrs, fieldError{pointer: "/" + k, message: "must be a string, not null"})
		case present:
			vals[k] = &v
		}
	}
	if len(typeErrs) > 0 {
		return 0, nil, newError("bad-request", "request body has invalid fields", typeErrs...)
	}
	if len(vals) == 0 {
		return 0, nil, newError("unprocessable-entity", "at least one of mobileNumber, email, firstName or lastName must be supplied",
			fieldError{pointer: "", message: "at least one of mobileNumber, email, firstName or lastName must be supplied"})
	}
	if v := vals["mobileNumber"]; v != nil && !validate.E164(*v) {
		ruleErrs = append(ruleErrs, fieldError{pointer: "/mobileNumber", message: "must be an E.164 number such as +61412345678"})
	}
	if v := vals["email"]; v != nil {
		if !validate.Email(*v) {
			ruleErrs = append(ruleErrs, fieldError{pointer: "/email", message: "must be an email address"})
		}
	}
	for _, k := range []string{"firstName", "lastName"} {
		if v := vals[k]; v != nil && validate.Blank(*v) {
			ruleErrs = append(ruleErrs, fieldError{pointer: "/" + k, message: "must not be empty"})
		}
	}
	if len(ruleErrs) > 0 {
		return 0, nil, newError("unprocessable-entity", "request body failed validation", ruleErrs...)
	}
	return withRecord(s, s.users, id, newError("not-found", "user "+id+" not found"), func(u *User) (int, any, *apiError) {
		if v := vals["email"]; v != nil {
			for oid, other := range s.users {
				if oid != id && strings.EqualFold(other.Email, *v) {
					return 0, nil, newError("conflict", "email address is already used by another user", fieldError{pointer: "/email", message: "already used by another user"})
				}
			}
			u.Email = *v
		}
		if v := vals["mobileNumber"]; v != nil {
			u.MobileNumber = *v
		}
		if v := vals["firstName"]; v != nil {
			u.FirstName = *v
		}
		if v := vals["lastName"]; v != nil {
			u.LastName = *v
		}
		return http.StatusOK, *u, nil
	})
}

func (s *Server) replaceRolePermissions(r *http.Request, body []byte) (int, any, *apiError) {
	org, slug := r.PathValue("organizationId"), r.PathValue("slug")
	if !validate.RoleSlug(slug) {
		return 0, nil, newError("bad-request", "role slug must match ^org-[a-z0-9_-]+$")
	}
	o, e := parseObject(body, "permissions")
	if e != nil {
		return 0, nil, e
	}
	raw, ok := o["permissions"]
	if !ok {
		return 0, nil, newError("bad-request", "permissions is required", fieldError{pointer: "/permissions", message: "is required"})
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return 0, nil, newError("bad-request", "permissions must be an array of strings", fieldError{pointer: "/permissions", message: "must be an array of strings"})
	}
	perms := make([]string, 0, len(items))
	var typeErrs, ruleErrs []fieldError
	for i, it := range items {
		var p string
		ptr := "/permissions/" + strconv.Itoa(i)
		if json.Unmarshal(it, &p) != nil || string(bytes.TrimSpace(it)) == "null" {
			typeErrs = append(typeErrs, fieldError{pointer: ptr, message: "must be a string"})
			continue
		}
		if !validate.PermissionSlug(p) {
			ruleErrs = append(ruleErrs, fieldError{pointer: ptr, message: "must match ^[a-z0-9:._*-]+$"})
		}
		perms = append(perms, p)
	}
	if len(typeErrs) > 0 {
		return 0, nil, newError("bad-request", "permissions must be an array of strings", typeErrs...)
	}
	if len(ruleErrs) > 0 {
		return 0, nil, newError("unprocessable-entity", "permission slugs may contain only lowercase letters, digits, colon, period, underscore, hyphen and asterisk", ruleErrs...)
	}
	return withRecord(s, s.roles, org, newError("not-found", "organization "+org+" not found"), func(roles map[string][]string) (int, any, *apiError) {
		if _, ok := roles[slug]; !ok {
			return 0, nil, newError("not-found", "role "+slug+" not found in organization "+org)
		}
		// Rule 2: unknown permission slugs are created at the provider first.
		for _, p := range perms {
			if !s.providerPerms[p] {
				s.providerPerms[p] = true
				s.createdPerms = append(s.createdPerms, p)
			}
		}
		roles[slug] = normalizePerms(perms)
		return http.StatusOK, struct {
			Permissions []string `json:"permissions"`
		}{append([]string{}, roles[slug]...)}, nil
	})
}
