//! The wgpu renderer. It knows meshes, palettes, cameras and lines; it knows
//! nothing of the ECS, the level format or the game's rules.
