package blend_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/blend"
)

func ExampleLerp() {
	a := mgl32.Vec3{0, 0, 0}
	b := mgl32.Vec3{10, 20, -4}

	fmt.Println(blend.Lerp(&a, &b, 0.25))
	fmt.Println(blend.Lerp(&a, &b, 0.5))
	// Output:
	// [2.5 5 -1]
	// [5 10 -2]
}

func ExampleNlerp() {
	const deg = math.Pi / 180
	// A heading of 30° turning to 350° (-10°) goes back through 0, not
	// forward through 180.
	a := blend.QuatFromAngle(30 * deg)
	b := blend.QuatFromAngle(350 * deg)

	for _, t := range []float32{0, 0.5, 1} {
		q := blend.Nlerp(&a, &b, t)
		fmt.Printf("t=%.1f: %.1f°\n", t, blend.AngleOf(&q)/deg)
	}
	// Output:
	// t=0.0: 30.0°
	// t=0.5: 10.0°
	// t=1.0: -10.0°
}

func ExampleLerpAngle() {
	const deg = math.Pi / 180
	// From 170° to -170° the short way is 20° through 180°.
	for _, t := range []float32{0, 0.25, 0.75, 1} {
		fmt.Printf("t=%.2f: %.0f°\n", t, blend.LerpAngle(170*deg, -170*deg, t)/deg)
	}
	// Output:
	// t=0.00: 170°
	// t=0.25: 175°
	// t=0.75: -175°
	// t=1.00: -170°
}

func ExampleExtrapolation_Travel() {
	const limit = 0.1  // seconds
	const speed = 3000 // units per second: a fast entity whose stream stops

	fmt.Print("ahead (s)     ")
	aheads := []float32{0.02, 0.05, 0.08, 0.1, 0.2}
	for _, ahead := range aheads {
		fmt.Printf("%7.3f", ahead)
	}
	fmt.Println()
	for _, e := range []blend.Extrapolation{blend.Coast, blend.Hold, blend.Linear, blend.DampedReturn} {
		fmt.Printf("%-14s", e)
		for _, ahead := range aheads {
			fmt.Printf("%7.1f", speed*e.Travel(ahead, limit))
		}
		fmt.Println()
	}
	// Output:
	// ahead (s)       0.020  0.050  0.080  0.100  0.200
	// coast            54.0  112.5  144.0  150.0  150.0
	// hold              0.0    0.0    0.0    0.0    0.0
	// linear           60.0  150.0  240.0  300.0  300.0
	// damped-return    48.0   75.0   48.0    0.0    0.0
}

func ExampleParseExtrapolation() {
	e, err := blend.ParseExtrapolation("linear")
	fmt.Println(e, err)

	_, err = blend.ParseExtrapolation("cubic")
	fmt.Println(err)
	// Output:
	// linear <nil>
	// blend: unknown extrapolation policy "cubic" (want coast, hold, linear or damped-return)
}
