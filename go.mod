module github.com/netsmooth/netsmooth

go 1.26

require (
	github.com/go-gl/mathgl v1.2.0
	github.com/mlange-42/arche v0.15.3
)
