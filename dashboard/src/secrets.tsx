// What the keys and OAuth clients pages share: scopes to choose from, a
// secret shown once, and rotation with a grace period.
import type { ComponentChildren } from "preact";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { ConfirmButton, CopyButton, fmtTime } from "./ui";

export const scopes: { scope: string; what: string }[] = [
  { scope: "engine:run", what: "run workflows" },
  { scope: "engine:read", what: "read workflows and jobs" },
  { scope: "creators:read", what: "read creators" },
  { scope: "creators:write", what: "create creators" },
  { scope: "ip:read", what: "read the IP catalog and certificates" },
  { scope: "ip:write", what: "register works" },
  { scope: "webhooks:read", what: "read webhooks and deliveries" },
  { scope: "webhooks:write", what: "create, test and delete webhooks" },
  { scope: "plans:read", what: "read tracked plans and their calendars" },
  { scope: "plans:write", what: "track, check off, re-plan and delete plans; make feed URLs" },
  { scope: "analytics:read", what: "read usage" },
  { scope: "keys:admin", what: "create, rotate and revoke keys" },
  { scope: "*", what: "every scope" },
];

/** The scope checkboxes of a create form (field name "scopes"). */
export function ScopeChecks() {
  return (
    <fieldset>
      <legend>Scopes</legend>
      <div class="checks">
        {scopes.map((s) => (
          <label key={s.scope} class="check">
            <input type="checkbox" name="scopes" value={s.scope} /> <code>{s.scope}</code> <span class="help">{s.what}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** A secret just created or rotated: shown once, never again. */
export function SecretCard(props: {
  titleId: string;
  title: ComponentChildren;
  testId: string;
  secret: string | undefined;
  previousSecretExpiresAt: Timestamp | undefined;
  onDone: () => void;
  children: ComponentChildren;
}) {
  return (
    <section class="card secret" aria-labelledby={props.titleId}>
      <h2 id={props.titleId}>{props.title}</h2>
      {props.children}
      <p class="row">
        <code class="secret-value" data-testid={props.testId}>
          {props.secret}
        </code>
        <CopyButton text={props.secret ?? ""} />
      </p>
      {props.previousSecretExpiresAt && <p>The previous secret keeps working until {fmtTime(props.previousSecretExpiresAt)}.</p>}
      <button type="button" class="secondary" onClick={props.onDone}>
        Done
      </button>
    </section>
  );
}

/** Rotate, asking how long the old secret keeps working (select id selectId). */
export function RotateButton(props: { question: string; selectId: string; onRotate: (gracePeriodSeconds: number) => Promise<void> | void }) {
  return (
    <ConfirmButton
      label="Rotate"
      question={props.question}
      confirmLabel="Rotate"
      onConfirm={() => {
        const sel = document.getElementById(props.selectId) as HTMLSelectElement | null;
        return props.onRotate(Number(sel?.value ?? 86400));
      }}
    >
      <label for={props.selectId}>The old secret keeps working for</label>
      <select id={props.selectId}>
        <option value="0">no time: stop it now</option>
        <option value="3600">1 hour</option>
        <option value="86400" selected>
          24 hours
        </option>
        <option value="604800">7 days</option>
      </select>
    </ConfirmButton>
  );
}
