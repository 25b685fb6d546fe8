package ecs

import "github.com/netsmooth/netsmooth/systems"

// Types for predicted entities, re-exported from package systems.
type (
	// Simulation is the game's deterministic Step and how to read a
	// position (and rotation) from its state.
	Simulation[S, I any] = systems.Simulation[S, I]
	// Predictor owns the prediction systems, their inbox of authoritative
	// states and outbox of applied inputs.
	Predictor[S, I any] = systems.Predictor[S, I]
	// Authoritative is the server's state of a predicted entity with the
	// input sequence it acknowledges.
	Authoritative[S any] = systems.Authoritative[S]
	// SentInput is an applied input for the transport to send.
	SentInput[I any] = systems.SentInput[I]
)

// AddPrediction adds client-side prediction for entities whose state has
// type S and input type I: a Reconcile system right after Receive and a
// Predict system right after it, configured by the pipeline's
// Config.Predict. Use the returned Predictor to spawn the local player,
// push authoritative states and drain the inputs to send.
//
// Call it before the first Update (or before handing Systems to an
// arche-model Model).
func AddPrediction[S, I any](p *Pipeline, sim Simulation[S, I]) (*Predictor[S, I], error) {
	pr, err := systems.NewPredictor(sim, p.cfg.Predict)
	if err != nil {
		return nil, err
	}
	// Receive, then every prediction pair added so far, then this one.
	at := 1 + 2*p.predictors
	added := []System{pr.Reconcile(), pr.Predict()}
	p.ordered = append(p.ordered[:at], append(added, p.ordered[at:]...)...)
	p.predictors++
	if p.initialized {
		for _, s := range added {
			s.Initialize(p.world)
		}
	}
	return pr, nil
}
