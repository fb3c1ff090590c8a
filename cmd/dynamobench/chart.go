package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
)

// writeChart draws one panel per workload: a bar per target, its height the
// throughput (ops/s) at 16 clients (or the largest count measured), each
// panel on its own scale, the figure printed above the bar and the ratio to
// the floor under it. With cpu set, the bar is instead the CPU per
// operation on the server CPUs: the server's (the target's colour) on top
// of its database's (grey).
func writeChart(path string, rep *report, cpu bool) error {
	clients := 0
	for _, c := range rep.Cells {
		if c.Clients == 16 {
			clients = 16
		}
	}
	if clients == 0 {
		for _, c := range rep.Cells {
			clients = max(clients, c.Clients)
		}
	}
	var wls []string
	seen := map[string]bool{}
	for _, w := range workloads {
		for _, c := range rep.Cells {
			if c.Workload == w.name && !seen[w.name] {
				seen[w.name] = true
				wls = append(wls, w.name)
			}
		}
	}
	var tgts []string
	for _, t := range allTargets {
		if rep.Targets[t] == "ok" {
			tgts = append(tgts, t)
		}
	}
	palette := map[string]color.RGBA{
		tDynPG: {0x1f, 0x77, 0xb4, 255}, tPgbench: {0xae, 0xc7, 0xe8, 255}, tHTTPFloor: {0x7f, 0x7f, 0x7f, 255},
		tDynSQLite: {0xd6, 0x27, 0x28, 255}, tSQLite: {0xff, 0x98, 0x96, 255},
		tDynalite: {0x2c, 0xa0, 0x2c, 255}, tMoto: {0x94, 0x67, 0xbd, 255},
	}
	const (
		cols   = 2
		panelW = 560
		panelH = 260
		top    = 90
		margin = 20
	)
	rows := (len(wls) + cols - 1) / cols
	W, H := cols*panelW+2*margin, top+rows*panelH+margin
	img := image.NewRGBA(image.Rect(0, 0, W, H))
	fill(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	black := color.RGBA{0, 0, 0, 255}
	grey := color.RGBA{0x88, 0x88, 0x88, 255}
	title := fmt.Sprintf("OPS/S AT %d CLIENTS (SERVER CPU %v, LOAD CPU %v)", clients, rep.Config["server_cpus"], rep.Config["load_cpus"])
	if cpu {
		title = fmt.Sprintf("CPU US/OP, SERVER CPU, %d CLIENTS (GREY: POSTGRESQL)", clients)
	}
	drawText(img, margin, 12, 3, black, title)
	// legend
	x := margin
	for _, t := range tgts {
		fill(img, image.Rect(x, 50, x+18, 68), palette[t])
		drawText(img, x+24, 53, 2, black, t)
		x += 24 + textWidth(t, 2) + 30
	}
	for i, wn := range wls {
		px, py := margin+(i%cols)*panelW, top+(i/cols)*panelH
		title := wn
		if w := workloadByName(wn); w != nil {
			title = w.title
		}
		drawText(img, px+10, py+6, 2, black, title)
		base := py + panelH - 40
		fill(img, image.Rect(px+10, base, px+panelW-20, base+1), grey)
		value := func(c *cell) float64 {
			if cpu {
				return c.CPU.ServerUsPerOp + c.CPU.DBUsPerOp
			}
			return c.OpsPerSec
		}
		maxV := 0.0
		for _, t := range tgts {
			if c := findCell(rep, wn, t, clients); c != nil {
				maxV = max(maxV, value(c))
			}
		}
		if maxV == 0 {
			continue
		}
		plotH := float64(panelH - 40 - 50)
		bw := (panelW - 40) / len(tgts)
		for j, t := range tgts {
			bx := px + 15 + j*bw
			c := findCell(rep, wn, t, clients)
			if c == nil {
				drawText(img, bx+4, base-16, 2, grey, "N/A")
				continue
			}
			h := int(value(c) / maxV * plotH)
			fill(img, image.Rect(bx, base-h, bx+bw-10, base), palette[t])
			if cpu {
				dh := int(c.CPU.DBUsPerOp / maxV * plotH)
				fill(img, image.Rect(bx, base-dh, bx+bw-10, base), grey)
			}
			label := fmt.Sprintf("%.0f", value(c))
			drawText(img, bx, base-h-16, 2, black, label)
			if fl, ok := floorOf[t]; ok && !cpu {
				if r, ok := ratioOf(rep, wn, t, fl, clients); ok {
					drawText(img, bx, base+8, 2, black, fmt.Sprintf("%.2fX", r))
				}
			}
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, c)
		}
	}
}

func textWidth(s string, scale int) int { return len(s) * 6 * scale }

// drawText draws s in a 5×7 bitmap font (upper case), scale pixels a dot.
func drawText(img *image.RGBA, x, y, scale int, c color.RGBA, s string) {
	for _, r := range strings.ToUpper(s) {
		g, ok := font5x7[r]
		if !ok {
			g = font5x7['?']
		}
		for row, bits := range g {
			for col := 0; col < 5; col++ {
				if bits&(1<<(4-col)) != 0 {
					fill(img, image.Rect(x+col*scale, y+row*scale, x+(col+1)*scale, y+(row+1)*scale), c)
				}
			}
		}
		x += 6 * scale
	}
}

// font5x7: each glyph is 7 rows of 5 bits, most significant bit leftmost.
var font5x7 = map[rune][7]byte{
	' ': {0, 0, 0, 0, 0, 0, 0},
	'0': {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},
	'1': {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
	'2': {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},
	'3': {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
	'4': {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},
	'5': {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
	'6': {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},
	'7': {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
	'8': {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},
	'9': {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
	'A': {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
	'B': {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},
	'C': {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},
	'D': {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},
	'E': {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},
	'F': {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},
	'G': {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},
	'H': {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
	'I': {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},
	'J': {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},
	'K': {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},
	'L': {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},
	'M': {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},
	'N': {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},
	'O': {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
	'P': {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},
	'Q': {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},
	'R': {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},
	'S': {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},
	'T': {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},
	'U': {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
	'V': {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},
	'W': {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},
	'X': {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},
	'Y': {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},
	'Z': {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},
	'.': {0, 0, 0, 0, 0, 0x0C, 0x0C},
	',': {0, 0, 0, 0, 0x0C, 0x04, 0x08},
	':': {0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0},
	'-': {0, 0, 0, 0x1F, 0, 0, 0},
	'/': {0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10},
	'(': {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02},
	')': {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08},
	'%': {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},
	'×': {0, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0},
	'_': {0, 0, 0, 0, 0, 0, 0x1F},
	'?': {0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04},
	'@': {0x0E, 0x11, 0x17, 0x15, 0x17, 0x10, 0x0E},
}
