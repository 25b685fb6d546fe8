package systems

// SetGeneralOnly makes r handle every message on its general path, without
// the shortcut for the common one, so that tests can check the two agree.
func SetGeneralOnly(r *Receive, on bool) { r.generalOnly = on }
