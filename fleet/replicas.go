package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"
)

// A limiter that uses its key records itself, about once a second, in a
// sorted set next to the key; members that have not done so for replicaTTL
// drop out. The set's size is the number of replicas sharing the limit,
// which sets a replica's fair share while Redis is away. Idle replicas drop
// out, so the share goes to the replicas that are sending.
const (
	heartbeatEvery = time.Second
	replicaTTL     = 3 * heartbeatEvery
)

// heartbeat records a replica in the set KEYS[1] at Redis's own clock (so
// that replicas' clocks need not agree), drops those older than ARGV[2]
// milliseconds and returns how many remain.
var heartbeat = redis.NewScript(`
local t = redis.call("TIME")
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[2])
redis.call("ZADD", KEYS[1], now, ARGV[1])
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", now - ttl)
redis.call("PEXPIRE", KEYS[1], ttl)
return redis.call("ZCARD", KEYS[1])
`)

// replicaSetKey names the sorted set of the replicas using key.
func replicaSetKey(key string) string { return "fleet-replicas:" + key }

// heartbeatIfDue records this limiter as active when its last record is a
// heartbeatEvery old, and learns how many replicas are. A failure is left
// to the next Wait's GCRA call to notice.
func (l *Limiter) heartbeatIfDue(ctx context.Context) {
	now := time.Now().UnixNano()
	next := l.nextBeat.Load()
	if now < next || !l.nextBeat.CompareAndSwap(next, now+int64(heartbeatEvery)) {
		return
	}
	n, err := callRedis(ctx, l.cfg.timeout, func(rctx context.Context) (int64, error) {
		return heartbeat.Run(rctx, l.rdb, []string{replicaSetKey(l.key)}, l.id, replicaTTL.Milliseconds()).Int64()
	})
	if err == nil && n > 0 {
		l.replicas.Store(n)
	}
}

// newReplicaID returns a random name for a limiter in the replica set.
func newReplicaID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b[:])
}
