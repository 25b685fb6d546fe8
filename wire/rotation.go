package wire

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

var identityQuat = mgl32.Quat{W: 1}

// Smallest three. A unit quaternion's largest component (by magnitude) is
// at least 1/2 and, with the sign chosen positive (q and -q are the same
// rotation), follows from the other three: sqrt(1 - a² - b² - c²). So only
// its index (2 bits) and the other three are sent, each in
// [-1/√2, +1/√2] quantised to RotBits bits. The mapping is symmetric
// around zero (levels -M..M with M = 2^(RotBits-1) - 1, stored as 0..2M)
// so that zero, and the identity, are exact.
//
// Packed layout, low bits first: index (2 bits, 0..3 = x, y, z, w), then
// the three remaining components in x, y, z, w order, RotBits bits each.

// rotLevels returns M, the number of positive levels of a component.
func (q Quantizer) rotLevels() uint64 { return 1<<(q.RotBits-1) - 1 }

// rotationBytes is the size of a packed rotation on the wire.
func (q Quantizer) rotationBytes() int { return (2 + 3*q.RotBits + 7) / 8 }

// identity is the packed identity rotation: index 3 (w), components zero.
func (q Quantizer) identity() uint64 { return identityBits(q.RotBits) }

// identityBits is the packed identity rotation at bits per component.
func identityBits(bits int) uint64 {
	// The masks change no valid shift (bits is at most 20) and spare the
	// compiler its tests for shifts of 64 or more.
	m := uint64(1)<<((bits-1)&63) - 1
	n := uint(bits)
	return 3 | m<<2 | m<<((2+n)&63) | m<<((2+2*n)&63)
}

// PackRotation packs r with the smallest-three scheme (see the package
// documentation for the layout). The zero quaternion packs as the identity;
// any other is normalised first. It fails with [ErrRange] for a non-finite
// quaternion.
func (q Quantizer) PackRotation(r mgl32.Quat) (uint64, error) {
	q = q.mustNorm()
	return q.pack(&r)
}

// pack is PackRotation with q normalised.
func (q *Quantizer) pack(r *mgl32.Quat) (uint64, error) {
	if zeroRotation(r) {
		return identityBits(q.RotBits), nil
	}
	return q.packAny(r)
}

// zeroRotation reports whether every bit of r is zero: the rotation a
// game that never sets one (a top-down one) sends for every entity,
// every tick, recognised in one branch where a server quantises its
// world. Negative zeros take packAny's way, to the same identity.
func zeroRotation(r *mgl32.Quat) bool {
	return math.Float32bits(r.W)|math.Float32bits(r.V[0])|math.Float32bits(r.V[1])|math.Float32bits(r.V[2]) == 0
}

// packAny is pack without the shortcut for the zero rotation.
func (q *Quantizer) packAny(r *mgl32.Quat) (uint64, error) {
	c := [4]float64{float64(r.V[0]), float64(r.V[1]), float64(r.V[2]), float64(r.W)}
	n2 := c[0]*c[0] + c[1]*c[1] + c[2]*c[2] + c[3]*c[3]
	if math.IsNaN(n2) || math.IsInf(n2, 0) {
		return 0, fmt.Errorf("%w: rotation %v is not finite", ErrRange, *r)
	}
	if n2 == 0 {
		return identityBits(q.RotBits), nil
	}
	largest := 0
	for i := 1; i < 4; i++ {
		if math.Abs(c[i]) > math.Abs(c[largest]) {
			largest = i
		}
	}
	inv := 1 / math.Sqrt(n2)
	if c[largest] < 0 {
		inv = -inv
	}
	m := uint64(1)<<(q.RotBits-1) - 1
	scale := float64(m) * math.Sqrt2 // component 1/√2 → level M
	packed := uint64(largest)
	shift := uint(2)
	for i := range 4 {
		if i == largest {
			continue
		}
		l := math.Round(c[i] * inv * scale)
		l = math.Max(-float64(m), math.Min(float64(m), l))
		packed |= uint64(int64(l)+int64(m)) << shift
		shift += uint(q.RotBits)
	}
	return packed, nil
}

// UnpackRotation is the inverse of [Quantizer.PackRotation]: a unit
// quaternion within the scheme's error of the packed one. It fails with
// [ErrRange] when a component is beyond the largest level or bits above
// the packed size are set (values PackRotation never produces).
func (q Quantizer) UnpackRotation(p uint64) (mgl32.Quat, error) {
	q = q.mustNorm()
	if err := q.checkRotation(p); err != nil {
		return identityQuat, err
	}
	return q.unpack(p), nil
}

// unpack unpacks a valid packed rotation with q normalised.
func (q *Quantizer) unpack(p uint64) mgl32.Quat {
	c := q.rotConsts()
	return c.unpack(p)
}

// rotConsts are the constants of unpacking, computed once per decoder.
type rotConsts struct {
	bits     uint
	levels   uint64
	mask     uint64
	inv      float64 // level → component
	identity uint64
}

func (q *Quantizer) rotConsts() rotConsts {
	m := q.rotLevels()
	return rotConsts{
		bits:     uint(q.RotBits),
		levels:   m,
		mask:     uint64(1)<<uint(q.RotBits) - 1,
		inv:      1 / (float64(m) * math.Sqrt2),
		identity: q.identity(),
	}
}

func (k *rotConsts) unpack(p uint64) mgl32.Quat {
	if p == k.identity {
		return identityQuat
	}
	largest := int(p & 3)
	var c [4]float64
	sum := 0.0
	shift := uint(2)
	for i := range 4 {
		if i == largest {
			continue
		}
		l := (p >> shift) & k.mask
		c[i] = float64(int64(l)-int64(k.levels)) * k.inv
		sum += c[i] * c[i]
		shift += k.bits
	}
	if sum <= 1 {
		c[largest] = math.Sqrt(1 - sum) // unit length by construction
	} else {
		// Only from hand-made packed values: the three alone are too long.
		n := 1 / math.Sqrt(sum)
		c[0], c[1], c[2], c[3] = c[0]*n, c[1]*n, c[2]*n, c[3]*n
	}
	return mgl32.Quat{W: float32(c[3]), V: mgl32.Vec3{float32(c[0]), float32(c[1]), float32(c[2])}}
}

// checkRotation reports whether p is a packed rotation PackRotation could
// produce with q (normalised): no bits above the packed size, no component
// level above 2M.
func (q *Quantizer) checkRotation(p uint64) error {
	if q.rotationValid(p) {
		return nil
	}
	n := uint(q.RotBits)
	if p>>(2+3*n) != 0 {
		return fmt.Errorf("%w: packed rotation %#x has bits above its %d", ErrRange, p, 2+3*n)
	}
	m := uint64(1)<<n - 1
	return fmt.Errorf("%w: packed rotation %#x: a component level is %d > %d", ErrRange, p, m, m-1)
}

// rotationValid is checkRotation's test without its error, small enough
// to inline: an encoder checks every record it adds. A level above
// 2M = 2^n - 2 is one with all its n bits set, so the test is three
// comparisons of a component with the all-ones level. The shift counts
// are masked (RotBits is at most 20) so that the compiler adds no tests
// for shifts of 64 or more.
func (q *Quantizer) rotationValid(p uint64) bool {
	n := uint(q.RotBits) & 31
	ones := uint64(1)<<n - 1
	x := p >> 2
	return p>>((2+3*n)&63) == 0 && x&ones != ones && (x>>n)&ones != ones && (x>>((2*n)&63))&ones != ones
}
