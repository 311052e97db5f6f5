//! The project loader the commands share with the language server (crate
//! `wf-project`: which files a path stands for, reading them, the
//! database with their imports), under the name the commands use.

pub use wf_project::*;
