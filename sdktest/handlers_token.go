package sdktest

import (
	"errors"
	"net/http"
	"time"
)

func (s *Server) token(r *http.Request, body []byte) (int, any, *apiError) {
	now := time.Now()
	if err := s.verifySigV4(r, body, now); err != nil {
		if errors.Is(err, errMissingAuth) {
			return 0, nil, newError("unauthorized", "a SigV4-signed request is required")
		}
		return 0, nil, newError("forbidden", "SigV4 verification failed: "+err.Error())
	}
	s.mu.Lock()
	s.tokensIssued++
	s.seq++
	n := s.seq
	s.mu.Unlock()
	tok, exp := s.signJWT(now, n)
	return http.StatusOK, struct {
		AccessToken string `json:"accessToken"`
		TokenType   string `json:"tokenType"`
		ExpiresIn   int64  `json:"expiresIn"`
	}{tok, "Bearer", int64(exp.Sub(now).Round(time.Second) / time.Second)}, nil
}
