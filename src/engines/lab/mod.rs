//! The pattern evaluation's lab: self-play positions labelled by the solver and search,
//! the trainer, wipeout search, and training data for fine-tuning. Synchronous; the
//! parallel parts run on rayon.

mod datagen;
mod parallel;
mod positions;
mod train_eval;
mod wipeouts;

pub use datagen::{Teacher, TeacherError};
pub use parallel::parallel_map;
pub use positions::{
    label_positions, read_positions, self_play_positions, BadPosition, LabelledPosition, Labelling, PositionsFileError,
    TeacherSpecError, UnknownTeacher,
};
pub use train_eval::{train_pattern_eval, FitErrors, PhaseFit, TrainProgress, TrainSettings, MIN_SEARCH_DEPTH};
pub use wipeouts::{find_wipeouts, find_wipeouts_with_progress, WipeoutError, Wipeouts};
