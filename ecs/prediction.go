package ecs

import "github.com/netsmooth/netsmooth/systems"

// AddPredictor adds client-side prediction for entities whose state has
// type S and input type I: a [systems.Reconcile] system after Receive,
// Timeline and Retire, and a [systems.Predict] system right after it, configured by
// the pipeline's Config.Predict at the pipeline's tick rate. Use the
// returned [systems.Predictor] to spawn the local player, push
// authoritative states and drain the inputs to send.
//
// Call it before the first Update (or before handing Systems to an
// arche-model Model). A pipeline may have several predictors (one per
// state type); each refuses authoritative states for another's entities.
func AddPredictor[S, I any](p *Pipeline, sim systems.Simulation[S, I]) (*systems.Predictor[S, I], error) {
	pr, err := systems.NewPredictor(sim, p.cfg.Predict)
	if err != nil {
		return nil, err
	}
	// Receive, Timeline and Retire, then every prediction pair added so
	// far, then this one.
	at := 3 + 2*p.predictors
	added := []System{pr.Reconcile(), pr.Predict()}
	p.ordered = append(p.ordered[:at], append(added, p.ordered[at:]...)...)
	p.predictors++
	// Initialized now rather than at the first Update (which skips them
	// then), so that the predictor knows its world from the start and
	// Spawn refuses any other.
	for _, s := range added {
		s.Initialize(p.world)
	}
	return pr, nil
}
