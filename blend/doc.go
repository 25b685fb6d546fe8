// Package blend is the small, allocation-free maths behind netsmooth's
// per-frame systems: position lerp, shortest-path rotation blending for 3D
// quaternions and 2D angles, rotation offsets for smoothed corrections, and
// the extrapolation policies used past the newest snapshot.
//
// Everything works on mathgl's mgl32 types, which netsmooth uses for
// storage and in its API, but the arithmetic is written out by hand: mgl32
// method chains such as a.Add(b.Sub(a).Mul(t)) copy their operands at
// every step, which in a loop over many entities costs several times the
// arithmetic itself.
//
// Functions take pointers where the operands are large so that the hot loops
// can pass component fields without copying them.
package blend
