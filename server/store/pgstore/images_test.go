package pgstore

import (
	"fmt"
	"testing"
)

// itemImages fills imagesBudget and stays within it: past it the images
// go, the one being recorded stays, and its accounting matches what it
// holds.
func TestItemImagesBudget(t *testing.T) {
	var c itemImages
	raw := make([]byte, 1000)
	n := 3 * imagesBudget / len(raw)
	most := 0
	for i := 0; i < n; i++ {
		key := []byte(fmt.Sprintf(`{"pk":{"S":"%d"}}`, i))
		c.put(1, key, image{raw: raw, ctid: "(0,1)", xmin: "7"})
		if c.bytes > imagesBudget {
			t.Fatalf("after %d puts: %d bytes, over the budget of %d", i+1, c.bytes, imagesBudget)
		}
		if got := c.get(1, key); got.raw == nil {
			t.Fatalf("put %d: its image is gone", i)
		}
		most = max(most, len(c.m))
	}
	sum := 0
	for k, v := range c.m {
		sum += v.size() + len(k.key)
	}
	if sum != c.bytes {
		t.Fatalf("accounted %d bytes, holds %d", c.bytes, sum)
	}
	// The budget is used before anything goes.
	if each := len(raw) + 5 + 1 + 20; most < imagesBudget/each-1 {
		t.Fatalf("at most %d images held, want the budget's %d", most, imagesBudget/each)
	}
	// Recording "absent" drops the image.
	key := []byte(fmt.Sprintf(`{"pk":{"S":"%d"}}`, n-1))
	c.put(1, key, image{})
	if got := c.get(1, key); got.raw != nil {
		t.Fatal("an absent item kept its image")
	}
}
