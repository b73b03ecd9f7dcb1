// Package fleet gives the replicas of a service one shared rate limit for the
// platform's access provider, kept in Redis.
//
// The provider rate-limits the platform account that every replica of every
// service shares. A client that paces itself (option.WithAdaptiveRateLimit)
// learns only its own share, from 429s, so a fleet of replicas keeps probing
// above the limit and a new replica starts at full speed. A *Limiter from
// NewRedisLimiter takes each attempt's turn from one budget in Redis instead:
// every replica that uses the same key sends only what the fleet's limit
// allows, however many replicas run.
//
//	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
//	c, err := client.New(option.WithRateLimiter(fleet.NewRedisLimiter(rdb, "provider", 200, 20),
//		option.AreaAccessMgmt)) // the access provider's limit: other areas do not wait on it
//
// Keep the client's adaptive rate limit on (the default; do not pass
// option.WithoutAdaptiveRateLimit) beside the fleet limiter. It engages only
// on a rate-limited answer (a 429), so while the fleet limiter keeps the
// fleet under the provider's limit it stays dormant and costs nothing; when
// 429s come anyway, as they can while Redis is away (see below), it paces
// the client until they stop.
//
// # How it decides
//
// The budget is a GCRA (generic cell rate algorithm) bucket, decided by
// go-redis/redis_rate's Lua script in one Redis round trip per attempt:
// Wait reserves the attempt's slot in the fleet's schedule and sleeps until
// it. Reserving, rather than asking again until admitted, keeps waiting
// attempts in arrival order and costs one round trip however long the queue.
// A wait that would end after the context's deadline is not started, and the
// slot is not taken: Wait fails at once with a *WaitError that matches
// errors.ErrRateLimited (package github.com/memberplatform/memberplatform-go/errors)
// and context.DeadlineExceeded.
//
// A key holding a turn further ahead than the limiter ever reserves (a
// minute's queue behind a full burst) was not written by limiters of these
// arguments: a corrupted value, or another go-redis/redis_rate user of the
// key with other limits. Wait then fails at once, with or without a
// deadline, with a *WaitError that matches errors.ErrRateLimited and names
// the key; give each limit a key of its own, or delete the key. So it does
// for a key holding no finite number (NaN, an infinity), which gives no
// turn at all; then errors.RetryAfterOf is a wait to retry after: the
// key's time to live, or a second when it has none.
//
// # Redis keys and lifecycle
//
// For a limiter on key K, and every replica that shares K, Redis holds two
// keys, both with a TTL, so nothing is left behind when replicas stop:
//
//   - "rate:K" (go-redis/redis_rate's prefix): a string, the bucket's
//     theoretical arrival time in seconds since 2017-01-01. Each turn taken
//     rewrites it with an expiry of the seconds until the bucket is full
//     again, rounded up: at most burst/perSecond plus a minute (the
//     longest queue a wait without a deadline reserves) and a second.
//   - "fleet-replicas:K": a sorted set of the replicas using K, one member
//     per limiter (a random 24-hex-digit name), scored by Redis's clock in
//     milliseconds. A limiter refreshes its member about once a second,
//     from a Wait; members older than 3 s are dropped, and the set expires
//     3 s after the last refresh.
//
// In a Redis Cluster the two keys may live on different nodes: each script
// touches one key.
//
// Nothing needs closing when a replica stops, and a Limiter has no Close
// method: it runs no goroutine of its own beyond NewRedisLimiter's one
// heartbeat, which ends within the Redis timeout (a Redis call abandoned
// at the timeout ends when go-redis gives up on it, within the client's
// ReadTimeout). A stopped replica's member drops out of the set within 3 s,
// and the others' fair share during an outage grows back accordingly; the
// turns it reserved and never used stay spent until the bucket's schedule
// passes them. The Redis client is the program's: the limiter never closes
// it, so close it after the last call that uses the limiter.
//
// # When Redis cannot answer
//
// Each Redis call has a short timeout (50 ms by default, WithRedisTimeout),
// enforced even when the go-redis client ignores context deadlines. By default
// the limiter fails open: when Redis is down or slow, Wait admits the attempt,
// paced by a local limiter at this replica's fair share of the limit
// (perSecond divided by the number of replicas that used the key in the last
// 3 s, which each replica records in Redis while it is up; a replica that has
// never reached Redis assumes it is alone). Local pacing starts after the last
// turn Redis handed out, since those attempts are still to come. The limiter
// logs one warning per outage (its own records: see "Logs during an
// outage" for go-redis's), asks Redis again at most every 50 ms, and uses
// it again as soon as it answers: for 2 s after that, an attempt also waits
// for a local turn before Redis counts it (replicas find Redis back at
// different moments), and the burst the bucket offers on return is drained,
// because the provider spent it during the outage.
//
// A call therefore never fails because Redis failed. The price is that, while
// Redis is away, the fleet is held to its limit only approximately: replicas
// that started during the outage, or whose load is uneven, can overshoot it,
// and so can a host so busy that Redis calls exceed the timeout while Redis
// is up. The client's retries and its adaptive rate limit, which is why it
// should stay on, absorb the 429s that follow.
//
// WithFailClosed turns that around: while Redis cannot answer, Wait refuses
// every attempt at once with an error matching ErrUnavailable, so the fleet
// never exceeds the limit but every call fails for as long as Redis is away.
// Choose it only when a 429 from the provider costs more than a failed call.
// Such a call's error is an outage, not a rate limit: it matches
// ErrUnavailable and errors.ErrTransport, not errors.ErrRateLimited, and
// carries no Retry-After (the *WaitError's RateLimited method says so to
// the SDK).
//
// # Logs during an outage
//
// "One warning per outage" is about the limiter's own records (WithLogger):
// a Warn when an outage begins and an Info when Redis answers again. The
// go-redis client logs too, through its own process-wide logger: while Redis
// refuses connections it prints "redis: connection pool: failed to dial
// after 5 attempts: ..." to stderr for many of the Redis calls the limiter
// makes (the probe every 50 ms, the heartbeats), several lines a second per
// client. go-redis v9 has no logger per client, and the limiter leaves the
// process-wide one to the program. To quiet those lines, set it once at
// start-up, before creating clients: drop them,
//
//	redis.SetLogger(logging.NewBlacklistLogger([]string{"failed to dial"})) // github.com/redis/go-redis/v9/logging
//
// or route all of go-redis's records to slog at Debug level:
//
//	type goRedisLog struct{ logger *slog.Logger }
//
//	func (g goRedisLog) Printf(ctx context.Context, format string, v ...any) {
//		g.logger.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
//	}
//
//	redis.SetLogger(goRedisLog{slog.Default()})
package fleet
