package jsproc

import "encoding/json"
import "time"

import "github.com/tetherhq/tether/kernels"

// who prefixes the package's errors.
const who = "kernels: jsproc"

// msg is one frame, either way. Fields an op does not use are left zero.
//
// Parent to child: start (Config), exec (Cell), cancel, reset, reply (ID,
// Reply or Err: a bridge call's answer), time (ID, Time: a Now answer), fire
// (ID, Gen, Time: a timer of the remote clock fired).
//
// Child to parent: ready, result (Result), call (ID, Name, Args), now (ID),
// arm (ID, Gen, Dur), stop (ID).
type msg struct {
	Op     string             `json:"op"`
	ID     int64              `json:"id,omitempty"`
	Gen    int64              `json:"gen,omitempty"`
	Config *childConfig       `json:"config,omitempty"`
	Cell   *kernels.Cell      `json:"cell,omitempty"`
	Result *kernels.Result    `json:"result,omitempty"`
	Name   string             `json:"name,omitempty"`
	Args   json.RawMessage    `json:"args,omitempty"`
	Reply  *kernels.ToolReply `json:"reply,omitempty"`
	Err    string             `json:"err,omitempty"`
	Time   time.Time          `json:"time,omitzero"`
	Dur    time.Duration      `json:"dur,omitempty"`
}

// childConfig is the part of kernels.Config the child's kernel runs with.
type childConfig struct {
	IdleTimeout    time.Duration `json:"idle"`
	InterruptGrace time.Duration `json:"grace"`
	MaxOutput      int           `json:"max_output"`
	MaxSpill       int           `json:"max_spill"`
	MaxText        int           `json:"max_text"`
	MaxDisplays    int           `json:"max_displays"`
	MaxImage       int           `json:"max_image"`
	MemoryLimit    int64         `json:"memory"`
	Bridge         bool          `json:"bridge"`       // cells may call tool()
	RemoteClock    bool          `json:"remote_clock"` // the parent's clock, not the wall
}
