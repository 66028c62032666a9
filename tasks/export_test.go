package tasks

// ResetYAML forgets every indexed task YAML file (tests that index files
// defining built-in names restore the built-ins with it).
func ResetYAML() {
	yamlMu.Lock()
	defer yamlMu.Unlock()
	yamlIndex = map[string]*yamlEntry{}
	yamlUnread = nil
}
