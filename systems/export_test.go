package systems

import "github.com/mlange-42/arche/ecs"

// SetGeneralOnly makes r handle every message on its general path, without
// the shortcut for the common one, so that tests can check the two agree.
func SetGeneralOnly(r *Receive, on bool) { r.generalOnly = on }

// Shortcuts returns how many messages r's shortcut stored.
func Shortcuts(r *Receive) uint64 { return r.shortcuts }

// SetPerEntity makes s fetch every entity's components through its query,
// as it does when arche's archetype bounds cannot be read, so that tests
// can check that drawing runs of entities agrees.
func SetPerEntity(s *Interpolate) {
	s.perEntity = true
	s.bounds = queryBounds{}
}

// SetAside makes s's fast loop leave every entity to its general path, so
// that tests can check that the fast loop draws what the general path
// would.
func SetAside(s *Interpolate) { s.setAside = true }

// ForgetBeyond drops every tick r's pipeline holds beyond horizon, as r
// does when the clock takes up a new timeline.
func ForgetBeyond(r *Receive, w *ecs.World, horizon float64) { r.forgetBeyond(w, horizon) }
