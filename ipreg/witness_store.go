package ipreg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/creativeops/creativeops/ent"
	"github.com/creativeops/creativeops/ent/logcosignature"
	"github.com/creativeops/creativeops/ent/logstate"
)

// StartWitnesses starts submitting the current log's checkpoints to the
// witnesses (c2sp.org/tlog-witness), in the background until Close. Each
// replica submits; the witnesses' cosignatures are stored in the database,
// where every replica finds them, and a replica skips a witness that has
// cosigned the latest checkpoint already.
func (r *Registry) StartWitnesses(ctx context.Context, opts WitnessOptions) error {
	if len(opts.Witnesses) == 0 {
		return nil
	}
	seen := map[string]bool{}
	for _, w := range opts.Witnesses {
		if w.verifier == nil {
			return fmt.Errorf("ipreg: witness %q was not made by ParseWitness", w.VerifierKey)
		}
		if seen[w.Name()] {
			return fmt.Errorf("ipreg: witness %s is listed twice", w.Name())
		}
		seen[w.Name()] = true
	}
	w := newWitnessing(r.log, &registryLog{r: r, origin: r.keys.Origin()}, opts)
	if !r.witnesses.CompareAndSwap(nil, w) {
		return errors.New("ipreg: witnesses started already")
	}
	w.start(ctx)
	return nil
}

// WitnessStatuses reports this replica's view of each configured witness
// (none when no witness is configured).
func (r *Registry) WitnessStatuses() []WitnessStatus {
	if w := r.witnesses.Load(); w != nil {
		return w.statuses()
	}
	return nil
}

// registryLog is the registry's current log as the witness client sees it.
// It reads the primary: a checkpoint is submitted once committed, and
// replicas coordinate through the stored cosignatures.
type registryLog struct {
	r      *Registry
	origin string
}

func (l *registryLog) head(ctx context.Context) (int64, []byte, error) {
	st, err := l.r.store.Ent.LogState.Query().Where(logstate.Origin(l.origin)).Only(ctx)
	if err != nil {
		return 0, nil, err
	}
	return st.Size, []byte(st.Checkpoint), nil
}

func (l *registryLog) prove(ctx context.Context, old, size int64) (tlog.TreeProof, error) {
	return ConsistencyProof(old, size, &dbHashes{ctx: ctx, client: l.r.store.Ent, origin: l.origin})
}

func (l *registryLog) cosigned(ctx context.Context) (map[string]int64, error) {
	rows, err := l.r.store.Ent.LogCosignature.Query().Where(logcosignature.Origin(l.origin)).
		Select(logcosignature.FieldWitnessKey, logcosignature.FieldSize).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, row := range rows {
		out[row.WitnessKey] = row.Size
	}
	return out, nil
}

func (l *registryLog) store(ctx context.Context, witnessKey string, size int64, checkpoint, cosignature []byte) error {
	client := l.r.store.Ent
	for range 2 {
		// Replace a smaller tree's cosignature; never a larger one
		// another replica stored meanwhile.
		n, err := client.LogCosignature.Update().
			Where(logcosignature.Origin(l.origin), logcosignature.WitnessKey(witnessKey), logcosignature.SizeLT(size)).
			SetSize(size).SetCheckpoint(string(checkpoint)).SetCosignature(string(cosignature)).Save(ctx)
		if err != nil || n > 0 {
			return err
		}
		exists, err := client.LogCosignature.Query().Where(logcosignature.Origin(l.origin), logcosignature.WitnessKey(witnessKey)).Exist(ctx)
		if err != nil || exists {
			return err
		}
		err = client.LogCosignature.Create().SetOrigin(l.origin).SetWitnessKey(witnessKey).
			SetSize(size).SetCheckpoint(string(checkpoint)).SetCosignature(string(cosignature)).Exec(ctx)
		if !ent.IsConstraintError(err) {
			return err
		}
		// Another replica created the row first: update it.
	}
	return nil
}

// cosignedCheckpoint returns the checkpoint of log origin that witnesses
// cosigned, with their cosignature lines appended, if one covers the
// record at index: of the trees the witnesses last cosigned, the one most
// of them cosigned (the largest on a tie). It reads one row per witness.
func (r *Registry) cosignedCheckpoint(ctx context.Context, origin string, index int64) (size int64, checkpoint string, ok bool, err error) {
	rows, err := r.store.Read.LogCosignature.Query().
		Where(logcosignature.Origin(origin), logcosignature.SizeGT(index)).All(ctx)
	if err != nil || len(rows) == 0 {
		return 0, "", false, err
	}
	count := map[int64]int{}
	for _, row := range rows {
		count[row.Size]++
	}
	best := slices.MaxFunc(rows, func(a, b *ent.LogCosignature) int {
		return cmp.Or(cmp.Compare(count[a.Size], count[b.Size]), cmp.Compare(a.Size, b.Size))
	})
	// Witnesses in a fixed order, so the same state gives the same bytes.
	slices.SortFunc(rows, func(a, b *ent.LogCosignature) int { return cmp.Compare(a.WitnessKey, b.WitnessKey) })
	checkpoint = best.Checkpoint
	for _, row := range rows {
		if row.Size == best.Size {
			checkpoint += row.Cosignature
		}
	}
	return best.Size, checkpoint, true, nil
}
