//! The `placements!` registry: one line per policy gives the module, the type and the
//! [`PlacementKind`](super::PlacementKind) variant, its scenario name (the module's name),
//! [`PlacementKind::ALL`](super::PlacementKind::ALL) and the build.

/// Declares the policy modules and [`PlacementKind`](super::PlacementKind) from a list of
/// `/// doc` + `Variant => module::Type,` lines (variant in CamelCase of the module name);
/// the `#[default]` one is the placement of a scenario that names none.
macro_rules! placements {
    ($($(#[$attr:meta])+ $kind:ident => $module:ident :: $policy:ident,)+) => {
        $(mod $module;)+
        $(pub use $module::$policy;)+

        /// The placement policies a scenario can name (`[scheduler] placement`,
        /// `[placement_comparison] placements`, `[fgd_experiment] policies`).
        #[derive(
            Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
        )]
        #[serde(rename_all = "snake_case")]
        pub enum PlacementKind {
            $($(#[$attr])+ $kind,)+
        }

        impl PlacementKind {
            /// Every policy, in registry order (the order charts list them).
            pub const ALL: [PlacementKind; [$(stringify!($kind)),+].len()] =
                [$(PlacementKind::$kind),+];

            /// The scenario-file spelling (the policy's file name).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(PlacementKind::$kind => stringify!($module),)+
                }
            }

            /// Builds the policy for a run described by `ctx`.
            pub fn build(self, ctx: &PlacementContext) -> Box<dyn Placement> {
                match self {
                    $(PlacementKind::$kind => Box::new(<$module::$policy as Placement>::build(ctx)),)+
                }
            }
        }
    };
}
