package serve

// ListenError is Run's error when it cannot listen on Config.Listen.
type ListenError struct {
	Addr string
	Err  error
}

func (e *ListenError) Error() string { return e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }
