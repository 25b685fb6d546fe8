module github.com/netsmooth/netsmooth/examples/netplay

go 1.26.0

require (
	github.com/go-gl/mathgl v1.2.0
	github.com/mlange-42/arche v0.15.3
	github.com/netsmooth/netsmooth v0.0.0
)

require (
	go.uber.org/goleak v1.3.0
	golang.org/x/net v0.56.0
)

require (
	github.com/dunglas/httpsfv v1.1.1 // indirect
	github.com/quic-go/qpack v0.6.0 // indirect
	github.com/quic-go/quic-go v0.62.0 // indirect
	github.com/quic-go/webtransport-go v0.13.0 // indirect
	golang.org/x/crypto v0.54.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.40.0 // indirect
)

replace github.com/netsmooth/netsmooth => ../..
