package pgstore

// SetBuildTestHooks installs the test hooks of build.go (nil: none) and
// returns a function restoring none.
func SetBuildTestHooks(afterCatalogRead, beforeStatement, buildPage func()) (restore func()) {
	set := func(p interface{ Store(*func()) }, f func()) {
		if f == nil {
			p.Store(nil)
			return
		}
		p.Store(&f)
	}
	set(&testHookAfterCatalogRead, afterCatalogRead)
	set(&testHookBeforeStatement, beforeStatement)
	set(&testHookBuildPage, buildPage)
	return func() {
		testHookAfterCatalogRead.Store(nil)
		testHookBeforeStatement.Store(nil)
		testHookBuildPage.Store(nil)
	}
}
