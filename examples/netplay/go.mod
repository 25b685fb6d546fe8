module github.com/netsmooth/netsmooth/examples/netplay

go 1.26

require (
	github.com/go-gl/mathgl v1.2.0
	github.com/mlange-42/arche v0.15.3
	github.com/netsmooth/netsmooth v0.0.0
)

require go.uber.org/goleak v1.3.0

replace github.com/netsmooth/netsmooth => ../..
