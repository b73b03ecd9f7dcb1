module github.com/memberplatform/memberplatform-go/fleet

go 1.26.0

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/memberplatform/memberplatform-go v0.0.0
	github.com/redis/go-redis/v9 v9.23.0
	go.uber.org/goleak v1.3.0
	golang.org/x/time v0.16.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/memberplatform/memberplatform-go => ../
