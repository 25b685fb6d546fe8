package bench

import (
	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
	c "github.com/netsmooth/netsmooth/components"
)

func c_NetID(id int) c.NetID { return c.NetID(id) }

func renderOf(p *Pipeline, e ecs.Entity) c.Render {
	m := generic.NewMap1[c.Render](&p.World)
	return *m.Get(e)
}
