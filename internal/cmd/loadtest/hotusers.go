package main

// Figure 24, printed 40.2+: figure 40.2 with several hot users, each
// limited on its own.
//
// The provider limits each of n users to 2 requests/s (a token bucket of
// its own, burst 1, 429 + Retry-After: 1 above it); every other user is
// unlimited; every answer comes after 2 ms. The hot users together get 1
// call in 5 (2 users: 1 in 10 each, as 40.2's one; 4 users: 1 in 20
// each), the rest go to 1,000 other users; 16 goroutines, 6 s, each call
// with a 5 s deadline, default options and WithoutAdaptiveRateLimit()
// side by side. Targets as 40.2's: the other users' calls/s ≥ 0.9 × the
// other client's and none of them fails; every hot user admitted ≥ 1.5/s;
// every failure of a hot user's call matches ErrRateLimited. The area's
// limit over every user, 40.2's control, is figure 19's. In its rows "hot
// admit/s" is the least admitted hot user's, the other hot columns all of
// theirs.
//
// -hotusers chooses n (default 2 and 4).

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

var hotUserCounts = flag.String("hotusers", "2,4", "figure 24: the numbers of hot users to run, comma-separated")

// 40.2+ Several hot users, each limited at 2 requests/s, beside unlimited users.
func hotUsersBesideOthers(ctx context.Context, _ bool, repeat int) bool {
	const d = 6 * time.Second
	met := true
	for f := range strings.SplitSeq(*hotUserCounts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 50 {
			fmt.Printf("40.2+ -hotusers: %q is not a number of hot users (1–50)\n", f)
			return false
		}
		hot := make([]string, n)
		for i := range hot {
			hot[i] = fmt.Sprintf("%s%d", hotUser, i)
		}
		fmt.Printf("40.2+ %d users each limited at 2 requests/s (burst 1, 429 + Retry-After: 1), the others unlimited, 1 call in %d for each (1 in 5 for them together); 16 goroutines per client for %v, answers after 2 ms, both clients at once\n",
			n, 5*n, d)
		for range repeat {
			ratio, def, hotRates := hotUsersSideBySide(ctx, d, hot, int64(5*n))
			met = verdict(ratio >= 0.9 && def.othersFailed == 0 && hotRates[0] >= 1.5 && def.hotRateLimited == def.hotFailed,
				"40.2+ %d hot users: the others at %.2f × (≥ 0.9) WithoutAdaptiveRateLimit's calls/s, %d of their calls failed (0); the least admitted hot user %.2f/s (≥ 1.5; %.2f/s without the limit); %d of %d hot failures match ErrRateLimited",
				n, ratio, def.othersFailed, hotRates[0], hotRates[1], def.hotRateLimited, def.hotFailed) && met
		}
	}
	return met
}
