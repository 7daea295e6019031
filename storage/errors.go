package storage

import "github.com/creativeops/creativeops/ent"

// IsNotFound reports whether err says a row that was asked for does not
// exist. Layers above storage classify errors with these rather than with
// ent's own functions, so ent stays behind the domain.
func IsNotFound(err error) bool { return ent.IsNotFound(err) }

// IsConflict reports whether err is a constraint violation: a row that
// would duplicate a unique key, or a reference to a missing one.
func IsConflict(err error) bool { return ent.IsConstraintError(err) }
