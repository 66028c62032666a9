package engine

import (
	"fmt"

	"github.com/gomlx/gomlx/backends"
	"github.com/gomlx/gomlx/pkg/core/shapes"
)

// deviceView is device dev of a backend seen as a backend of one device
// (replicas.go): what its users put "on device 0" goes to dev, and its
// executables, compiled as for any device, run on dev. Everything else is
// the backend's.
type deviceView struct {
	backends.Backend
	dev backends.DeviceNum
}

// NumDevices implements backends.Backend: the view has one device.
func (v *deviceView) NumDevices() int { return 1 }

// DeviceDescription implements backends.Backend.
func (v *deviceView) DeviceDescription(backends.DeviceNum) string {
	return v.Backend.DeviceDescription(v.dev)
}

// Builder implements backends.Backend: its executables run on dev.
func (v *deviceView) Builder(name string) backends.Builder {
	return viewBuilder{Builder: v.Backend.Builder(name), dev: v.dev}
}

// BufferDeviceNum implements backends.DataInterface: dev is the view's 0.
func (v *deviceView) BufferDeviceNum(b backends.Buffer) (backends.DeviceNum, error) {
	d, err := v.Backend.BufferDeviceNum(b)
	if err != nil || d != v.dev {
		return d, fmt.Errorf("buffer on device %d, not on the replica's device %d: %w", d, v.dev, err)
	}
	return 0, nil
}

// BufferFromFlatData implements backends.DataInterface, on dev.
func (v *deviceView) BufferFromFlatData(_ backends.DeviceNum, flat any, shape shapes.Shape) (backends.Buffer, error) {
	return v.Backend.BufferFromFlatData(v.dev, flat, shape)
}

// NewSharedBuffer implements backends.DataInterface, on dev.
func (v *deviceView) NewSharedBuffer(_ backends.DeviceNum, shape shapes.Shape) (backends.Buffer, any, error) {
	return v.Backend.NewSharedBuffer(v.dev, shape)
}

// BufferCopyToDevice implements backends.DataInterface: the view's one
// device holds every buffer already.
func (v *deviceView) BufferCopyToDevice(backends.Buffer, backends.DeviceNum) (backends.Buffer, error) {
	return nil, fmt.Errorf("the view of device %d has one device: nothing to copy to", v.dev)
}

// viewBuilder compiles executables that run on dev.
type viewBuilder struct {
	backends.Builder
	dev backends.DeviceNum
}

// Compile implements backends.Builder.
func (b viewBuilder) Compile(outputs []backends.Op, shardings []*backends.ShardingSpec) (backends.Executable, error) {
	x, err := b.Builder.Compile(outputs, shardings)
	if err != nil {
		return nil, err
	}
	return viewExecutable{Executable: x, dev: b.dev}, nil
}

// viewExecutable runs on dev.
type viewExecutable struct {
	backends.Executable
	dev backends.DeviceNum
}

// Execute implements backends.Executable on dev.
func (x viewExecutable) Execute(inputs []backends.Buffer, donate []bool, _ backends.DeviceNum) ([]backends.Buffer, error) {
	return x.Executable.Execute(inputs, donate, x.dev)
}
