//! External engines on the command line: `ext:NAME` names an `[[engine]]` table of
//! the `--engines FILE`, read, resolved and started by the library
//! ([`arena::PlayerSpec::parse`], [`arena::identify_engines`]).

pub(super) use arena::{engines_file as all, identify_engines as identify};
