// Package workflows holds the engine's planning workflows, one file per
// workflow, named <vertical>_<workflow>.go. Each file registers its workflow
// from init; importing this package makes all of them available.
//
// A workflow is a deterministic planner: it computes dates, budgets and
// checks from its context with the industry rules cited in its comments, and
// warns when the plan asked for cannot work.
package workflows
