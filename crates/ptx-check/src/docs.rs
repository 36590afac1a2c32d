//! The generated reference pages: `docs/features.md` (from the feature table of `ptx-isa`) and
//! `docs/diagnostics.md` (from [`crate::codes::CODES`]). Tests compare the committed files with
//! these functions' output (`UPDATE_DOCS=1 cargo test -p ptx-check --test docs` rewrites
//! them), so the docs always say what the checker does.

use crate::codes::CODES;
use ptx_isa::features::{fill, FeatureRequirement, GateOrder, IsaText, FEATURES};
use ptx_isa::{PtxVersion, KNOWN_TARGETS};
use std::fmt::Write;

fn opt_sm(v: Option<u32>) -> String {
    v.map_or("—".to_string(), |n| format!("sm_{n}"))
}

fn opt_ptx(v: Option<PtxVersion>) -> String {
    v.map_or("—".to_string(), |v| v.to_string())
}

fn messages(r: &FeatureRequirement) -> String {
    let m = if r.target_subject.contains("{m}") {
        "«p»"
    } else {
        ""
    };
    let op = if r.target_subject.contains("{op}") {
        "«op»"
    } else {
        ""
    };
    let t = r.target_message(m, op);
    let v = r.version_message(m, op);
    let list: Vec<String> = match r.order {
        GateOrder::TargetFirst => t.into_iter().chain(v).collect(),
        GateOrder::VersionFirst => v.into_iter().chain(t).collect(),
    };
    if list.is_empty() {
        "not checked".to_string()
    } else {
        list.iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join("<br>")
    }
}

fn isa(r: &FeatureRequirement) -> String {
    match r.isa {
        IsaText::Same => "same".to_string(),
        IsaText::Differs {
            min_sm,
            min_ptx,
            note,
        } => format!("**{}, {}** — {note}", opt_sm(min_sm), opt_ptx(min_ptx)),
        IsaText::NotInIsa(note) => format!("not in the ISA — {note}"),
    }
}

/// `docs/features.md`.
pub fn features_markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "# Feature gates: minimum target and PTX version\n\n\
         <!-- Generated from the feature table of crates/ptx-isa/src/features.rs by \
         crates/ptx-check/src/docs.rs; do not edit. Regenerate with \
         `UPDATE_DOCS=1 cargo test -p ptx-check --test docs`. -->\n\n\
         Every target/version gate ptxas 13.5 enforces on the cache-control instructions, as \
         `ptxsim check` enforces it: the subject of ptxas's messages, the lowest `.target` and \
         `.version` that pass, and the order of the two messages when both fail. Target \
         comparisons are numeric (`sm_90a` and `sm_100f` satisfy \"sm_90 or higher\"). Where \
         the ISA text states something else, the last column says what; ptxas's numbers win \
         (measured in `tests/parity/`, see `docs/ptxas-rules.md`). `—` means ptxas does not \
         check that side.\n\n",
    );
    out.push_str(
        "| gate | instructions | applies to | min target | min version | ptxas messages (in order) | ISA text |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for r in FEATURES {
        let name = fill(r.target_subject, "«p»", "«op»");
        let _ = writeln!(
            out,
            "| `{:?}` {} | {} | {} | {} | {} | {} | {} |",
            r.feature,
            name.replace('|', "\\|"),
            r.instructions,
            r.summary.replace('|', "\\|"),
            opt_sm(r.min_sm),
            opt_ptx(r.min_ptx),
            messages(r).replace('|', "\\|"),
            isa(r).replace('|', "\\|"),
        );
    }
    out.push_str(
        "\n## Where ptxas 13.5 and the ISA text disagree on gates\n\n\
         ptxsim follows ptxas. The rows above whose ISA column is not `same`:\n\n",
    );
    for r in FEATURES {
        match r.isa {
            IsaText::Same => {}
            _ => {
                let _ = writeln!(
                    out,
                    "* **{}** ({}): ptxas {} / {}; ISA {}.",
                    fill(r.target_subject, "«p»", "«op»"),
                    r.instructions,
                    opt_sm(r.min_sm),
                    opt_ptx(r.min_ptx),
                    isa(r)
                );
            }
        }
    }
    out.push_str(
        "\nThe differences in grammar and combination rules (free qualifier order, sinks in \
         every `ld` vector, `.v8` with 8/16-bit types, `src-size` equal to `cp-size`, …) are \
         listed in `docs/ptxas-rules.md` §13.\n\n\
         ## Targets\n\n\
         The `.target` values ptxas 13.5 accepts and the lowest `.version` for each (below it: \
         `PTX .version X does not support .target sm_NN`, code E0005). Any other target is \
         E0004.\n\n\
         | target | lowest `.version` |\n|---|---|\n",
    );
    for (t, v) in KNOWN_TARGETS {
        let _ = writeln!(out, "| {t} | {v} |");
    }
    instruction_gates(&mut out);
    out
}

/// The instruction-gate table (`ptx_isa::insn_gates`), one row per ptxas message.
fn instruction_gates(out: &mut String) {
    use ptx_isa::GateKind;
    out.push_str(
        "\n## Instruction gates (every other instruction)\n\n\
         The minimum target and version of the instructions outside the cache-control \
         families, from `crates/ptx-isa/src/insn_gates_table.rs` (measured by \
         `tests/parity/gen_gates.py`, see `docs/ptxas-rules.md` §19). One row per message \
         ptxas prints, in its order within the opcode; a row applies when every word of the \
         condition holds: `.x` written, `!.x` not written, `.x|.y` either, `t0.f16` the first \
         type modifier is `.f16`, `#3` three operands, `%name` a special register operand, \
         `@sm=89` / `@v>=8.1` the target / version. Version gates compare `.version 5.1` as \
         6.0 (ptxas does). `not on` rows list the targets that have the instruction.\n\n\
         | opcode | condition | check | subject | measured on (form) |\n|---|---|---|---|---|\n",
    );
    for g in ptx_isa::INSN_GATES {
        let check = match g.kind {
            GateKind::Target(n) | GateKind::TargetBare(n) => format!("target ≥ sm_{n}"),
            GateKind::Version(v) => format!("version ≥ {v}"),
            GateKind::Arch(a) => format!("not on targets other than {}", a.join(", ")),
            GateKind::Compile(a) => format!("cannot be compiled for {}", a.join(", ")),
        };
        let cond = if g.when.is_empty() {
            "(always)".to_string()
        } else {
            g.when
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | `{}` |",
            g.opcode,
            cond.replace('|', "\\|"),
            check,
            g.subject.replace('|', "\\|"),
            g.evidence.split_whitespace().next().unwrap_or(""),
        );
    }
}

/// `docs/diagnostics.md`.
pub fn diagnostics_markdown() -> String {
    let mut out = String::new();
    out.push_str(
        "# Diagnostics of `ptxsim check`\n\n\
         <!-- Generated from crates/ptx-check/src/codes.rs by crates/ptx-check/src/docs.rs; do \
         not edit. Regenerate with `UPDATE_DOCS=1 cargo test -p ptx-check --test docs`. -->\n\n\
         `ptxsim check FILE... [--target sm_XX] [--ptx-version X.Y] [--format rich|ptxas|json] [--threads N]` \
         validates every cache-control instruction (`ld`, `ld.global.nc`, `st`, `cp.async` and \
         its group, wait and mbarrier forms, `createpolicy`, `prefetch`/`prefetchu`) the way \
         ptxas 13.5 does, for the module's `.target` and `.version` (or the overrides), and \
         reports every finding in the file. It exits 2 if any finding is an error.\n\n\
         Each finding has a stable code (below), our message with a help line (the minimum \
         target or version, or the legal alternatives), and ptxas's own wording:\n\n\
         * `--format rich` (default): source excerpt, code, message, help, in source order;\n\
         * `--format ptxas`: exactly ptxas's lines in ptxas's order \
         (`ptxas FILE, line N; error   : …`, `ptxas warning : …` for the driver's messages, \
         and the closing `ptxas fatal   : Ptx assembly aborted due to errors`), so tools that \
         parse ptxas output can use ptxsim; `tests/parity` shows it reproduces ptxas's output \
         on every one of ~30,000 measured modules;\n\
         * `--format json`: schema `ptxsim-check/1`, one object per file with `errors`, \
         `warnings` and per finding `severity`, `code`, `line`, `column`, `end_line`, \
         `end_column`, `message`, `ptxas`, `help`.\n\n\
         Severities: `fatal` stops ptxas (nothing after it is checked), `error` rejects the \
         module, `warning` and `info` do not. Like ptxas, `Unknown symbol` findings are \
         reported at the end of their function, and the `.version`/`.target` mismatch after \
         every other finding.\n\n\
         Example (`--format rich`, then `--format ptxas`):\n\n```text\n",
    );
    let src = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\t\
               .reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\tld.global.cg.L1::evict_first.b32 %r1, [%rd1];\n\t\
               ld.relaxed.global.b32 %r2, [%rd1];\n\tret;\n}\n";
    let report = crate::check_source("k.ptx", src.as_bytes(), &crate::CheckOptions::default());
    out.push_str(&crate::render::rich(
        &report.file,
        &report.diagnostics,
        false,
    ));
    out.push_str("```\n\n```text\n");
    out.push_str(&crate::render::ptxas(&report.file, &report.diagnostics));
    out.push_str(
        "```\n\n\
         ## Codes\n\n\
         | code | finding |\n|---|---|\n",
    );
    for c in CODES {
        let _ = writeln!(
            out,
            "| [{0}](#{1}) | {2} |",
            c.code,
            c.code.to_lowercase(),
            c.title
        );
    }
    for c in CODES {
        let _ = write!(
            out,
            "\n### {}\n\n**{}.** {}\n\nptxas's wording:\n\n",
            c.code, c.title, c.explanation
        );
        for p in c.ptxas {
            let _ = writeln!(out, "* `{p}`");
        }
        let _ = writeln!(out, "\nExample: `{}`", c.example);
    }
    out.push_str(
        "\nThe feature gates behind E0100/E0101 are listed with their minimums in \
         `docs/features.md`.\n",
    );
    out
}
