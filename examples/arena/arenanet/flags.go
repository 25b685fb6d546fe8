package arenanet

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
)

// RulesFlags adds the flags that choose a server's Rules to fs: -world,
// -bots, -view, -budget, and -small for the arena before it grew
// (SmallRules), whose numbers those given override. After fs.Parse, the
// function it returns makes the rules of the flags; small asks for
// SmallRules as the base without -small (the compare mode does).
func RulesFlags(fs *flag.FlagSet) func(small bool) (Rules, error) {
	def := DefaultRules()
	world := fs.String("world", fmt.Sprintf("%.0fx%.0f", def.W, def.H), "the world's size in units, WxH (the screen shows 128x80 around the player)")
	bots := fs.Int("bots", def.Bots, fmt.Sprintf("bots the server simulates (0..%d)", MaxBots))
	view := fs.Float64("view", float64(def.View), "radius of each client's area: the server sends it the entities within (interest management; 0: every entity to every client)")
	budget := fs.Int("budget", def.Budget, "bytes a second the server sends each client at most, by priority (0: no budget)")
	isSmall := fs.Bool("small", false, fmt.Sprintf("the arena before it grew: %v (the other flags override)", SmallRules()))
	return func(small bool) (Rules, error) {
		r := def
		if small || *isSmall {
			r = SmallRules()
		}
		var err error
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "world":
				if r.W, r.H, err = parseSize(*world); err != nil {
					err = fmt.Errorf("-world %q: %w", *world, err)
				}
			case "bots":
				r.Bots = *bots
			case "view":
				r.View = float32(*view)
			case "budget":
				r.Budget = *budget
			}
		})
		if err != nil {
			return Rules{}, err
		}
		return r, r.Check()
	}
}

// parseSize reads WxH.
func parseSize(s string) (w, h float32, err error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, fmt.Errorf("want WxH, like 400x256")
	}
	fw, err1 := strconv.ParseFloat(ws, 32)
	fh, err2 := strconv.ParseFloat(hs, 32)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("want WxH, like 400x256")
	}
	return float32(fw), float32(fh), nil
}
