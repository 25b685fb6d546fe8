module github.com/netsmooth/netsmooth/examples/archemodel

go 1.26.0

require (
	github.com/go-gl/mathgl v1.2.0
	github.com/mlange-42/arche v0.15.3
	github.com/netsmooth/netsmooth v0.0.0
)

require (
	github.com/mlange-42/arche-model v0.10.0
	golang.org/x/exp v0.0.0-20230418202329-0354be287a23 // indirect
)

replace github.com/netsmooth/netsmooth => ../..
