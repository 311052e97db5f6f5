//! Renderers: human (ariadne), concise and JSON. Filled in by the renderer work.
