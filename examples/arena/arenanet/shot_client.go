package arenanet

import (
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/netsmooth/netsmooth/client"
	"github.com/netsmooth/netsmooth/components"
	"github.com/netsmooth/netsmooth/internal/scenario"
	"github.com/netsmooth/netsmooth/wire"
)

// The client's side of the shots: it aims at what it draws, sends the
// shot with the input that goes out in the same frame, tells the server
// what it drew then, and follows the server's verdicts.

// shotsKept is how many recent shots a client keeps: those waiting for
// their verdict and those still drawn (ShotMarks).
const shotsKept = 16

// verdictTimeout is how long a shot waits for its verdict before the
// client stops waiting (its input was lost, or the server refused it
// before it judged it).
const verdictTimeout = 3 * time.Second

// Verdict is what a client knows of one of its shots.
type Verdict uint8

const (
	// Pending: the server has not answered yet.
	Pending Verdict = iota
	// Confirmed: the server's ray struck the bot aimed at.
	Confirmed
	// Missed: the server judged it a miss (or refused it).
	Missed
	// Unanswered: no verdict came within verdictTimeout.
	Unanswered
)

// firedShot is one of the client's recent shots.
type firedShot struct {
	no        uint8
	comp      bool // fired with lag compensation on
	from, to  mgl32.Vec2
	at, ruled time.Time
	verdict   Verdict
}

// ShotMark is a recent shot, to draw: a tracer from From to To (the
// bot aimed at, where it was drawn) and, once ruled, its verdict.
type ShotMark struct {
	From, To mgl32.Vec2
	// Age is the time since the shot, VerdictAge since its verdict came
	// (meaningful unless Verdict is Pending), in seconds.
	Age, VerdictAge float64
	Verdict         Verdict
}

// ShotStats are a client's counts of its shots, what the overlay shows.
type ShotStats struct {
	// LagComp says the client's shots are judged against what it drew
	// (Settings.LagComp); off, against the server's present.
	LagComp bool
	// Claimed counts the shots fired at a bot the client drew in the
	// line of fire, with compensation ([1]) and without ([0]); Ruled
	// those the server judged (its verdict came back) and Confirmed
	// those it confirmed.
	Claimed, Ruled, Confirmed [2]int
}

// shooting is a client's shots.
type shooting struct {
	trigger   bool       // held this frame (SetTrigger)
	facing    mgl32.Vec2 // the last direction the player moved in, unit
	sinceShot int        // inputs queued since the last shot, up to ShotEvery
	next      shot       // the shot the next input queued carries
	hasNext   bool
	no        uint8 // the last shot's number
	late      []wire.Late
	near      []nearBot
	fired     [shotsKept]firedShot
	nFired    int // shots fired, ever: fired[(nFired-1)%shotsKept] is the newest
	pending   int // of the newest shots, how many wait for a verdict
	seenLast  uint8
	seenCount uint8
	stats     ShotStats
}

// nearBot is a bot near the line of fire: its NetID, its span, how far
// from the line it is drawn.
type nearBot struct {
	id   components.NetID
	span components.Span
	off  float32
}

// SetTrigger says whether the trigger (space, a mouse button) is held:
// while it is, the client fires at the nearest bot within ShotCone of
// the player's facing and ShotRange of it, at most once every ShotEvery
// ticks.
func (c *Client) SetTrigger(held bool) { c.shots.trigger = held }

// face keeps the player's facing: the direction of its stick when it
// has one.
func (s *shooting) face(st scenario.Stick) {
	if d := (mgl32.Vec2{float32(st.X), float32(st.Y)}); d.Len() > 0 {
		s.facing = d.Normalize()
	}
}

// aim runs once a frame in which inputs go out, after the pipeline's
// Update: with the trigger held and the weapon ready, it picks the
// target among the bots drawn this frame and prepares the shot for the
// first input queued; in every such frame it tells the session what the
// client draws (client.DrawnNow at the render tick, with the late
// records of the bots the shot may strike), which rides with the inputs.
func (c *Client) aim() {
	s := &c.shots
	s.late = s.late[:0]
	rt := c.pipe.Clock().RenderTick()
	if s.trigger && !s.hasNext && s.sinceShot+1 >= ShotEvery && c.meID != 0 && c.world.Alive(c.me) {
		r := c.render.Get(c.me)
		origin := mgl32.Vec2{r.Pos[0], r.Pos[1]}
		if aimed, ok := c.target(origin); ok {
			s.no++
			d := aimed.Sub(origin)
			target, to := c.lineOfFire(origin, aimed, rt)
			s.next = shot{no: s.no, target: uint32(target), origin: origin, angle: float32(math.Atan2(float64(d[1]), float64(d[0])))}
			s.hasNext = true
			comp := c.set.LagComp
			s.stats.Claimed[b2i(comp)]++
			s.fired[s.nFired%shotsKept] = firedShot{no: s.no, comp: comp, from: origin, to: to, at: time.Now()}
			s.nFired++
			s.pending = min(s.pending+1, shotsKept)
		}
	}
	_ = c.link.Session().SetDrawn(client.DrawnNow(rt, s.late)) // at most wire.DefaultMaxLate, ascending (DrawnNow sorts)
}

// target returns where the nearest bot drawn within ShotRange of origin
// and ShotCone of the facing is drawn: the shot aims at its centre.
func (c *Client) target(origin mgl32.Vec2) (mgl32.Vec2, bool) {
	cosCone := float32(math.Cos(ShotCone))
	var best components.NetID
	var at mgl32.Vec2
	bestD := float32(ShotRange)
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, _ := q.Get()
		if r.Flags&components.Visible == 0 || uint32(*id) > PlayerBase {
			continue
		}
		p := mgl32.Vec2{r.Pos[0], r.Pos[1]}
		d := p.Sub(origin)
		l := d.Len()
		if l == 0 || l > bestD || d.Dot(c.shots.facing) < cosCone*l {
			continue
		}
		best, at, bestD = *id, p, l
	}
	return at, best != 0
}

// lineOfFire casts the shot's ray from origin toward to (the bot aimed
// at, as drawn) against the bots as the client draws them, as the server
// will against the bots as it rewinds them, and returns the first struck:
// the target the client claims (the one aimed at, unless another drawn
// bot stands in the way). It fills the shot's late records: the struck
// bot's, then those of the other bots drawn near the line of fire (which
// the server's ray might strike first), nearest the line first, as many
// as the wire carries, each only when the server needs it
// (client.LateOf).
func (c *Client) lineOfFire(origin, to mgl32.Vec2, rt float64) (components.NetID, mgl32.Vec2) {
	s := &c.shots
	s.near = s.near[:0]
	dir := to.Sub(origin)
	length := dir.Len()
	dir = dir.Mul(1 / length)
	var struck components.NetID
	at, first := to, float32(math.Inf(1))
	q := c.remote.Query(&c.world)
	for q.Next() {
		id, r, span := q.Get()
		if r.Flags&components.Visible == 0 || uint32(*id) > PlayerBase {
			continue
		}
		p := mgl32.Vec2{r.Pos[0], r.Pos[1]}
		m := origin.Sub(p)
		along := -m.Dot(dir)
		off := float32(math.Abs(float64(m[0]*dir[1] - m[1]*dir[0])))
		if along < -BotRadius || along > length+BotRadius || off > 2*BotRadius+1 {
			continue
		}
		s.near = append(s.near, nearBot{id: *id, span: *span, off: off})
		// The ray against the bot's sphere (from inside: at once).
		t := float32(0)
		if cc := m.Dot(m) - BotRadius*BotRadius; cc > 0 {
			disc := along*along - cc
			if along < 0 || disc < 0 {
				continue
			}
			t = along - float32(math.Sqrt(float64(disc)))
		}
		if t < first || t == first && *id < struck {
			struck, at, first = *id, p, t
		}
	}
	// The struck bot first, then nearest the line, by insertion: a
	// handful.
	for i := range s.near {
		if s.near[i].id == struck {
			s.near[i].off = -1
		}
	}
	for i := 1; i < len(s.near); i++ {
		for j := i; j > 0 && s.near[j].off < s.near[j-1].off; j-- {
			s.near[j], s.near[j-1] = s.near[j-1], s.near[j]
		}
	}
	for i := range s.near {
		if len(s.late) == wire.DefaultMaxLate {
			break
		}
		if l, needed := client.LateOf(s.near[i].id, &s.near[i].span, rt); needed {
			s.late = append(s.late, l)
		}
	}
	return struck, at
}

// encodeShot appends the prepared shot to input dst (its switches byte
// last) once ShotEvery inputs have gone since the previous shot, as the
// server counts them.
func (s *shooting) encodeShot(dst []byte) []byte {
	s.sinceShot = min(s.sinceShot+1, ShotEvery)
	if !s.hasNext || s.sinceShot < ShotEvery {
		return dst
	}
	dst[len(dst)-1] |= inShot
	s.hasNext, s.sinceShot = false, 0
	return appendShot(dst, &s.next)
}

// follow reads the server's verdicts from the player's State word
// (verdictState): the shots up to the newest judged one are ruled, the
// newest as its bit says, the others by the count of confirmed shots.
// Shots left without a verdict for verdictTimeout stop waiting.
func (s *shooting) follow(state uint16, now time.Time) {
	last, hit, count := readVerdict(state)
	if last != s.seenLast {
		confirmed := int((count - s.seenCount) & 0x7f)
		// The pending shots up to the one numbered last, oldest first.
		n := 0
		for k := s.pending; k >= 1; k-- {
			if s.at(k).no == last {
				n = s.pending - k + 1
				break
			}
		}
		if n > 0 {
			newest := s.at(s.pending - n + 1)
			v := Missed
			if hit {
				v, confirmed = Confirmed, confirmed-1
			}
			s.rule(newest, v, now)
			for k := s.pending; k > s.pending-n+1; k-- {
				v := Missed
				if confirmed > 0 {
					v, confirmed = Confirmed, confirmed-1
				}
				s.rule(s.at(k), v, now)
			}
			s.pending -= n
		}
		s.seenLast = last
	}
	s.seenCount = count
	for s.pending > 0 && now.Sub(s.at(s.pending).at) > verdictTimeout {
		s.at(s.pending).verdict, s.at(s.pending).ruled = Unanswered, now
		s.pending--
	}
}

// at returns the k-th newest shot fired (k from 1 to shotsKept): at(1)
// is the newest, at(s.pending) the oldest still waiting for its verdict.
func (s *shooting) at(k int) *firedShot {
	return &s.fired[(s.nFired-k+shotsKept*2)%shotsKept]
}

// rule records shot f's verdict.
func (s *shooting) rule(f *firedShot, v Verdict, now time.Time) {
	f.verdict, f.ruled = v, now
	s.stats.Ruled[b2i(f.comp)]++
	if v == Confirmed {
		s.stats.Confirmed[b2i(f.comp)]++
	}
}

// ShotStats returns the counts of the client's shots.
func (c *Client) ShotStats() ShotStats {
	st := c.shots.stats
	st.LagComp = c.set.LagComp
	return st
}

// ShotMarks appends the shots fired in the last second (and those ruled
// in the last second) to dst, oldest first, to draw.
func (c *Client) ShotMarks(dst []ShotMark) []ShotMark {
	s := &c.shots
	now := time.Now()
	for k := min(s.nFired, shotsKept); k >= 1; k-- {
		f := s.at(k)
		m := ShotMark{From: f.from, To: f.to, Age: now.Sub(f.at).Seconds(), Verdict: f.verdict}
		if f.verdict != Pending {
			m.VerdictAge = now.Sub(f.ruled).Seconds()
		}
		if m.Age < 1 || f.verdict != Pending && m.VerdictAge < 1 {
			dst = append(dst, m)
		}
	}
	return dst
}
