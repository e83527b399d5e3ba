//! The `queue_policies!` registry: one line per queue policy gives the
//! [`PolicyKind`](super::PolicyKind) variant, its scenario name and how it is built from
//! the scenario's options; [`PolicyKind::ALL`](super::PolicyKind::ALL), `as_str` and
//! `build_with` follow from the list.

/// Declares [`PolicyKind`](super::PolicyKind) from a list of `/// doc` +
/// `Variant = "name" => |options| constructor,` lines.
macro_rules! queue_policies {
    ($($(#[$attr:meta])+ $kind:ident = $name:literal => |$o:ident| $build:expr,)+) => {
        /// The queue policies a scenario can name (`[scheduler] policy`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub enum PolicyKind {
            $($(#[$attr])+ #[serde(rename = $name)] $kind,)+
        }

        impl PolicyKind {
            /// Every policy, in registry order.
            pub const ALL: [PolicyKind; [$($name),+].len()] = [$(PolicyKind::$kind),+];

            /// The scenario-file spelling.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(PolicyKind::$kind => $name,)+
                }
            }

            /// Builds the policy with the options a scenario gives.
            pub fn build_with(self, options: &SchedOptions) -> Box<dyn QueuePolicy> {
                match self {
                    $(PolicyKind::$kind => {
                        #[allow(unused_variables)]
                        let $o = options;
                        Box::new($build)
                    })+
                }
            }
        }
    };
}
