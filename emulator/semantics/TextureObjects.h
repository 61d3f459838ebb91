// What the texture (Texture.cpp) and surface (Surface.cpp) instructions
// share: the object a lane's handle names, the geometry a shape modifier
// gives, and the unsupported report.
#pragma once

#include "emulator/Device.h"
#include "emulator/Semantics.h"
#include "ptx/Writer.h"

#include <optional>
#include <string>

namespace emu::texture {

inline void unsupported(Exec &x, const DInstr &in, const std::string &why) {
  x.cta.report(ptx::DiagKind::Unsupported, ptx::Severity::Error, x.pc, x.warp, x.mask,
               "the emulator cannot execute '" +
                   ptx::instructionName(*x.kernel().module, x.kernel().instr(in)) + "': " + why);
}

/// The object each lane's handle names, looked up once per distinct handle.
class Objects {
public:
  Objects(Exec &x, const DOp &handle, bool surface) : x_(x), handle_(handle), surface_(surface) {}
  /// Lane `lane`'s object, or null after reporting a handle that names none.
  const TextureObject *of(unsigned lane) {
    // txq and suq write the handle as an address ([%rd1]); the others as the
    // first element of an address list ([%rd1, {...}]).
    const bool address = handle_.kind == DOp::Addr && handle_.hasBase;
    if (handle_.kind != DOp::Reg && !address) {
      fail(lane, "a texture or surface named by a .texref/.surfref variable is not supported; use objects");
      return nullptr;
    }
    const uint64_t h = address ? effectiveAddress(x_, handle_, lane) : readOperand(x_, handle_, lane);
    if (!object_ || h != last_) {
      last_ = h;
      object_ = x_.cta.device.textures.find(h);
      if (object_ && object_->surface != surface_) object_.reset();
    }
    if (!object_) {
      fail(lane, std::string(surface_ ? "surface" : "texture") + " object " + std::to_string(h) +
                     " does not exist (never created, destroyed, or a " + (surface_ ? "texture" : "surface") +
                     " object)");
      return nullptr;
    }
    return &*object_;
  }

  void fail(unsigned lane, const std::string &why) {
    x_.cta.report(ptx::DiagKind::OutOfBounds, ptx::Severity::Error, x_.pc, x_.warp, 1u << lane, why,
                  {{"thread", std::to_string(x_.warp.index * 32 + lane)}});
  }

private:
  Exec &x_;
  const DOp &handle_;
  bool surface_;
  uint64_t last_ = 0;
  std::optional<TextureObject> object_;
};

inline /// The dimensions and layering of a geometry; false for cube maps and
       /// multisample geometries.
    bool
    geometry(ptx::Mod shape, unsigned &dims, bool &layered) {
  layered = false;
  switch (shape) {
  case ptx::Mod::Mem1d: dims = 1; return true;
  case ptx::Mod::Mem2d: dims = 2; return true;
  case ptx::Mod::Mem3d: dims = 3; return true;
  case ptx::Mod::MemA1d: dims = 1, layered = true; return true;
  case ptx::Mod::MemA2d: dims = 2, layered = true; return true;
  default: return false;
  }
}

} // namespace emu::texture
