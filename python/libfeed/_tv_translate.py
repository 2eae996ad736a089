"""A torchvision (v1 or v2) or timm transform as libfeed options.

libfeed's pipeline is fixed and runs in C: crop or resize, flip, rotation,
colour jitter, greyscale, an auto-augment policy, the conversion (dtype,
mean/std), then RandomErasing on the output. A transform is translated only
when every step of it has an option that means the same thing, with the
same parameter values, in an order that pipeline runs; anything else raises
TypeError naming the step, the parameter and why. Nothing here runs a
transform: the objects' own attributes are read (as their __init__ stored
them), so a subclass or a Python callable, whose behaviour cannot be read,
is refused.

    translate(T.Compose([T.RandomResizedCrop(176), T.RandomHorizontalFlip(), ...]))
    -> {"augment": "train", "height": 176, "width": 176, "scale_min": 0.08, ...}

No torch import at module level: the objects are recognised by their class's
module and name, and torch is imported only to read a dtype.
"""
import math
import numbers

# Where the classes we know live: family by module prefix.
_FAMILIES = (("torchvision.transforms.v2", "v2"), ("torchvision.transforms", "v1"),
             ("timm.data", "timm"))

# libfeed's fixed order of the pixel steps (src/pixels/pipeline.c: finish(), then the
# policy, the conversion and the erasing).
_GEOMETRY, _FLIP, _ROTATE, _JITTER, _GREY, _POLICY = range(1, 7)
_ORDER_TEXT = ("crop/resize, flip, rotation, colour jitter, greyscale, auto-augment policy, "
               "conversion to a tensor and dtype, Normalize, RandomErasing")

# PIL's integer filter constants, which torchvision accepts as interpolation.
_PIL_FILTERS = {0: "nearest", 1: "lanczos", 2: "bilinear", 3: "bicubic", 4: "box", 5: "hamming"}

# What torchvision's AutoAugment/RandAugment/TrivialAugmentWide default to, and
# libfeed's fixed values (feed.h: aa_num_bins).
_TRIVIAL_BINS = 31

HELP = ("libfeed cannot run a Python transform: its workers decode and augment in C. "
        "Use augment='train' (RandomResizedCrop + RandomHorizontalFlip) or "
        "augment='val' (Resize + CenterCrop), size=, mean=/std=, dtype=, and "
        "augment={...} for the parameters (scale, ratio, flip_p, rotate_deg, "
        "brightness, contrast, saturation, hue, grayscale_p); pass the folder "
        "(ImageFolder's root) as the dataset")


def family(obj):
    """("v1" | "v2" | "timm", class name) for a class of ours, else (None, name)."""
    cls = type(obj)
    mod = cls.__module__ or ""
    for prefix, fam in _FAMILIES:
        if mod == prefix or mod.startswith(prefix + "."):
            return fam, cls.__name__
    return None, cls.__name__


def _label(obj):
    fam, name = family(obj)
    if fam == "v2":
        return "v2." + name
    if fam == "timm":
        return "timm " + name
    return name


class _Refuse(TypeError):
    pass


def _refuse(op, why):
    raise _Refuse(f"{op}: {why}")


def _close(a, b, tol=1e-6):
    """Equal as libfeed's float32 options hold them (torchvision keeps doubles)."""
    return abs(float(a) - float(b)) <= tol * max(1.0, abs(float(a)), abs(float(b)))


def interpolation_word(value):
    """An InterpolationMode, a PIL constant or a string as a lower-case word."""
    if isinstance(value, bool):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return _PIL_FILTERS.get(int(value), str(value))
    word = getattr(value, "value", value)  # InterpolationMode.BILINEAR.value == "bilinear"
    return str(word).lower()


def _dtype_name(dtype):
    s = str(dtype)
    return s[len("torch."):] if s.startswith("torch.") else s


def _rgb_bytes(op, name, value):
    """A fill as 0xRRGGBB: None or 0 -> 0, a number or an (r, g, b) of whole 0..255."""
    if value is None:
        return 0
    if isinstance(value, dict):
        _refuse(op, f"{name}={value!r}: a fill per input type has no libfeed option "
                    "(give a number or an (r, g, b))")
    vals = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(vals) == 1:
        vals = vals * 3
    if len(vals) != 3:
        _refuse(op, f"{name}={value!r}: libfeed's fill is one RGB colour (three values)")
    out = 0
    for v in vals:
        v = float(v)
        if not (0 <= v <= 255 and v == int(v)):
            _refuse(op, f"{name}={value!r}: libfeed fills with whole byte values 0..255")
        out = (out << 8) | int(v)
    return out


class _State:
    """What the steps so far made of the image, and the options they set."""

    def __init__(self):
        self.opts = {}
        self.stage = 0            # the last pixel step's place in libfeed's order
        self.stage_op = None      # ... and which op it was
        self.geometry = None      # "train" | "val" | "none"
        self.pending_resize = None  # (op, shorter side): a Resize(s) waiting for its CenterCrop
        self.tensor = False       # the image is a tensor (not a PIL image)
        self.dtype = "uint8"      # the pixels' dtype
        self.normalized = False
        self.erased = False
        self.seen = set()

    def once(self, op, key):
        if key in self.seen:
            _refuse(op, "appears twice: libfeed's pipeline has each step once")
        self.seen.add(key)

    def at(self, op, stage):
        """op is a pixel step of libfeed's kind `stage`: in order, on 8-bit pixels."""
        if self.pending_resize is not None and stage != _GEOMETRY:
            r_op = self.pending_resize[0]
            _refuse(op, f"comes between {r_op} and its CenterCrop: libfeed's augment='val' is "
                        "Resize(shorter) directly followed by CenterCrop")
        if stage < self.stage:
            _refuse(op, f"comes after {self.stage_op}: libfeed's pipeline runs its steps in a "
                        f"fixed order ({_ORDER_TEXT}), and these two do not commute")
        if self.dtype != "uint8":
            _refuse(op, "comes after the conversion to float: torchvision would then work on "
                        "float values, libfeed works on the 8-bit pixels before converting; "
                        "put it before ToTensor/ToDtype (as torchvision's references do)")
        if self.erased or self.normalized:
            _refuse(op, "comes after Normalize/RandomErasing: libfeed's pixel steps run before "
                        "the conversion")
        self.stage, self.stage_op = stage, op

    def train_only(self, op, what):
        if self.geometry != "train":
            where = {None: "no crop or resize before it",
                     "val": "Resize + CenterCrop (augment='val')",
                     "none": "a Resize to a fixed size (augment='none')"}[self.geometry]
            _refuse(op, f"libfeed applies {what} only with augment='train' (RandomResizedCrop "
                        f"first); here there is {where}")

    def antialias(self, op, value):
        # On a PIL image the resize always antialiases (PIL has no other);
        # on a tensor only antialias=True does.
        if self.tensor and value is not True:
            _refuse(op, f"antialias={value!r} on a tensor: libfeed's resize is always "
                        "antialiased (as antialias=True, and PIL); give antialias=True")

    def interpolation(self, op, value):
        word = interpolation_word(value)
        if word not in ("bilinear", "bicubic"):
            _refuse(op, f"interpolation={word}: libfeed's resize is bilinear or bicubic "
                        "(antialiased)")
        prev = self.opts.get("interpolation")
        if prev is not None and prev != word:
            _refuse(op, f"interpolation={word} differs from the resize before it ({prev}): "
                        "libfeed has one filter for every resize")
        self.opts["interpolation"] = word


def _size_hw(op, size):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    size = list(size)
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) == 2:
        return int(size[0]), int(size[1])
    _refuse(op, f"size={size!r}: expected an int or (height, width)")


def _range(op, name, value):
    try:
        lo, hi = (float(v) for v in value)
    except (TypeError, ValueError):
        _refuse(op, f"{name}={value!r}: expected (min, max)")
    return lo, hi


# ---- the steps ------------------------------------------------------------------------------

def _random_resized_crop(st, op, t, fam):
    st.at(op, _GEOMETRY)
    if st.geometry is not None or st.pending_resize is not None:
        _refuse(op, "a second crop/resize: libfeed crops and resizes once")
    h, w = _size_hw(op, t.size)
    interp = t.interpolation
    if isinstance(interp, (tuple, list)):  # timm's interpolation='random'
        _refuse(op, f"interpolation={[interpolation_word(i) for i in interp]}: a filter drawn per "
                    "image has no libfeed option (give one: 'bilinear' or 'bicubic')")
    st.interpolation(op, interp)
    if fam != "timm":  # timm's resized_crop is torchvision's functional, antialiased
        st.antialias(op, getattr(t, "antialias", None))
    smin, smax = _range(op, "scale", t.scale)
    rmin, rmax = _range(op, "ratio", t.ratio)
    if not 0 < smin <= smax <= 1:
        _refuse(op, f"scale={tuple(t.scale)}: libfeed needs 0 < min <= max <= 1")
    if not 0 < rmin <= rmax:
        _refuse(op, f"ratio={tuple(t.ratio)}: libfeed needs 0 < min <= max")
    st.geometry = "train"
    st.opts.update(augment="train", height=h, width=w, scale_min=smin, scale_max=smax,
                   ratio_min=rmin, ratio_max=rmax, flip_p=0.0)  # flip_p: see _flip


def _resize(st, op, t):
    st.at(op, _GEOMETRY)
    if st.geometry is not None or st.pending_resize is not None:
        _refuse(op, "a second resize: libfeed crops and resizes once")
    if getattr(t, "max_size", None) is not None:
        _refuse(op, f"max_size={t.max_size}: libfeed's resize has no cap on the longer side")
    if t.size is None:
        _refuse(op, "size=None: libfeed resizes to a given shorter side or size")
    st.interpolation(op, t.interpolation)
    st.antialias(op, getattr(t, "antialias", None))
    size = [t.size] if isinstance(t.size, numbers.Integral) else list(t.size)
    if len(size) == 1:
        st.pending_resize = (op, int(size[0]))
    else:
        h, w = _size_hw(op, size)
        st.geometry = "none"
        st.opts.update(augment="none", height=h, width=w)


def _center_crop(st, op, t):
    h, w = _size_hw(op, t.size)
    if st.pending_resize is not None:
        _, shorter = st.pending_resize
        st.pending_resize = None
        st.at(op, _GEOMETRY)
        st.geometry = "val"
        st.opts.update(augment="val", resize_shorter=shorter, height=h, width=w)
        return
    if st.geometry == "none" and (h, w) == (st.opts["height"], st.opts["width"]):
        st.at(op, _GEOMETRY)
        return  # cropping an image of exactly that size: nothing
    _refuse(op, "a CenterCrop not directly after Resize(shorter side): libfeed's center crop "
                "is augment='val' (Resize(s) then CenterCrop) only")


def _flip(st, op, t):
    st.once(op, "flip")
    p = float(t.p)
    if p == 0:
        return
    st.train_only(op, "the flip")
    # A flip permutes pixels: it commutes exactly with the colour jitter (whose
    # contrast uses the image's mean), greyscale, the conversion and Normalize,
    # so it may come after those; not after a rotation, a policy or the erasing,
    # which place things where a flip would move them.
    if st.stage in (_JITTER, _GREY) or st.dtype != "uint8" or st.normalized:
        if st.stage > _GREY or st.erased:
            st.at(op, _FLIP)  # says why
    else:
        st.at(op, _FLIP)
    st.opts["flip_p"] = p


def _rotation(st, op, t):
    st.once(op, "rotate")
    lo, hi = _range(op, "degrees", t.degrees)
    if lo == hi == 0:
        return
    st.at(op, _ROTATE)
    st.train_only(op, "the rotation")
    if lo != -hi:
        _refuse(op, f"degrees=({lo:g}, {hi:g}): libfeed's rotation is uniform in [-d, d] "
                    "(symmetric)")
    if not 0 <= hi <= 180:
        _refuse(op, f"degrees=({lo:g}, {hi:g}): libfeed rotates by at most 180 degrees")
    word = interpolation_word(t.interpolation)
    if word != "bilinear":
        _refuse(op, f"interpolation={word}: libfeed's rotation samples bilinearly; give "
                    "interpolation=InterpolationMode.BILINEAR (torchvision's default is nearest)")
    if t.expand:
        _refuse(op, "expand=True: libfeed's rotation keeps the image's size")
    if t.center is not None:
        _refuse(op, f"center={t.center!r}: libfeed rotates about the image's centre")
    st.opts.update(rotate_deg=hi, fill=_rgb_bytes(op, "fill", t.fill))


def _jitter(st, op, t):
    st.once(op, "jitter")
    out = {}
    for name, center in (("brightness", 1.0), ("contrast", 1.0), ("saturation", 1.0), ("hue", 0.0)):
        r = getattr(t, name)
        if r is None:
            continue
        lo, hi = _range(op, name, r)
        f = hi - center
        # libfeed draws the factor from [max(0, 1 - f), 1 + f] (hue: [-f, f]),
        # torchvision from the range it stored: equal only for that shape.
        want_lo = -f if name == "hue" else max(0.0, center - f)
        if f <= 0 or not _close(lo, want_lo):
            what = "[-h, h]" if name == "hue" else "[max(0, 1 - f), 1 + f]"
            _refuse(op, f"{name}=({lo:g}, {hi:g}): libfeed's {name} takes one factor f and draws "
                        f"from {what}; this range is not of that form")
        if name == "hue" and f > 0.5:
            _refuse(op, f"hue=({lo:g}, {hi:g}): libfeed's hue is at most 0.5")
        out[name] = _f32(f)  # 0.4 rather than 1.4 - 1 = 0.3999999999999999
    if not out:
        return
    st.at(op, _JITTER)
    st.train_only(op, "colour jitter")
    st.opts.update(out)


def _grey(st, op, t):
    st.once(op, "grey")
    p = float(t.p)
    if p == 0:
        return
    st.at(op, _GREY)
    st.train_only(op, "greyscale")
    st.opts["grayscale_p"] = p


def _policy_common(st, op, t, word):
    st.once(op, "policy")
    st.at(op, _POLICY)
    st.train_only(op, "an auto-augment policy")
    interp = interpolation_word(t.interpolation)
    if interp not in ("nearest", "bilinear"):
        _refuse(op, f"interpolation={interp}: libfeed's policy ops sample nearest or bilinear")
    st.opts.update(auto_augment=word, aa_interpolation=interp,
                   aa_fill=_rgb_bytes(op, "fill", t.fill))


def _trivial(st, op, t):
    _policy_common(st, op, t, "trivialaugment")
    if int(t.num_magnitude_bins) != _TRIVIAL_BINS:
        _refuse(op, f"num_magnitude_bins={t.num_magnitude_bins}: libfeed's trivialaugment always "
                    f"uses {_TRIVIAL_BINS} (torchvision's default)")


def _randaugment(st, op, t):
    _policy_common(st, op, t, "randaugment")
    n, bins, m = int(t.num_ops), int(t.num_magnitude_bins), t.magnitude
    if not 1 <= n <= 16:
        _refuse(op, f"num_ops={n}: libfeed applies 1..16 ops")
    if not 2 <= bins <= 1000:
        _refuse(op, f"num_magnitude_bins={bins}: libfeed takes 2..1000")
    if not (isinstance(m, numbers.Integral) and 0 <= m < bins):
        _refuse(op, f"magnitude={m!r}: torchvision indexes its {bins} bins with it; libfeed "
                    f"takes a whole bin 0..{bins - 1}")
    st.opts.update(aa_num_ops=n, aa_num_bins=bins, aa_magnitude=float(m), aa_mstd=0.0, aa_inc=False)


def _autoaugment(st, op, t):
    policy = getattr(t.policy, "name", str(t.policy))
    if policy != "IMAGENET":
        _refuse(op, f"policy={policy}: libfeed has AutoAugment's ImageNet policy only")
    _policy_common(st, op, t, "autoaugment")


def _to_tensor_pil(st, op, t, scale_to_float, maybe=False):
    """PILToTensor / ToImage (uint8) or ToTensor (float32 in 0..1)."""
    if st.tensor:
        if maybe:
            return  # v2's and timm's Maybe* pass a tensor through unchanged
        _refuse(op, "the image is a tensor already: torchvision would raise")
    st.tensor = True
    if scale_to_float:
        st.dtype = "float32"


def _to_dtype(st, op, dtype, scale):
    if isinstance(dtype, dict):
        _refuse(op, f"dtype={dtype!r}: a dtype per input type has no libfeed option")
    name = _dtype_name(dtype)
    if not st.tensor:
        # v2.ToDtype passes a PIL image through unchanged; torchvision v1's raise.
        if op.startswith("v2."):
            return
        _refuse(op, "before the image is a tensor: torchvision would raise")
    if name == st.dtype:
        return
    if name not in ("float32", "float16", "bfloat16", "uint8"):
        _refuse(op, f"dtype={name}: libfeed delivers uint8, float32, float16 or bfloat16")
    if name == "uint8":
        _refuse(op, f"dtype=uint8 after {st.dtype}: libfeed converts 8-bit pixels once, to the "
                    "output dtype")
    if st.dtype == "uint8" and not scale:
        _refuse(op, f"dtype={name} with scale=False keeps the values 0..255: libfeed's float "
                    "output is x/255 (then mean/std): give scale=True")
    if st.erased:
        _refuse(op, "after RandomErasing on uint8: libfeed erases the output, in its dtype; put "
                    "RandomErasing after the conversion and Normalize")
    st.dtype = name


def _normalize(st, op, t):
    if st.normalized:
        _refuse(op, "appears twice: libfeed normalises once")
    if st.dtype == "uint8":
        _refuse(op, "on uint8 pixels: torchvision's Normalize needs a float tensor (ToTensor or "
                    "ToDtype(torch.float32, scale=True) before it)")
    if st.erased:
        _refuse(op, "after RandomErasing: libfeed erases the normalised output; put "
                    "RandomErasing after Normalize (as torchvision's references do)")
    # As float32, which both torchvision's Normalize and libfeed compute in:
    # 0.485 rather than the 0.48500001430511475 of a float32 tensor's mean.
    mean = [_f32(v) for v in _flat(t.mean)]
    std = [_f32(v) for v in _flat(t.std)]
    if len(mean) == 1:
        mean = mean * 3
    if len(std) == 1:
        std = std * 3
    if len(mean) != 3 or len(std) != 3:
        _refuse(op, f"mean/std of {len(mean)}/{len(std)} values: libfeed's output is RGB (3)")
    st.normalized = True
    st.opts.update(mean=tuple(mean), std=tuple(std))


def _f32(v):
    import numpy as np

    return float(str(np.float32(float(v))))


def _flat(v):
    tolist = getattr(v, "tolist", None)  # a tensor or numpy array (timm passes tensors)
    v = tolist() if tolist is not None else v
    return v if isinstance(v, (list, tuple)) else [v]


def _erase_common(st, op, p):
    st.once(op, "erase")
    if not st.tensor:
        _refuse(op, "on a PIL image: torchvision's RandomErasing takes a tensor (after ToTensor/"
                    "ToDtype and Normalize)")
    st.train_only(op, "RandomErasing")
    # libfeed erases its output: equal where nothing but a dtype cast follows
    # (a Normalize after it is refused there, as is a conversion of uint8).
    st.erased = True
    st.opts["erase_p"] = p


def _erase_value(st, op, value):
    """value: None ("random") or a list of numbers in the tensor's units."""
    if value is None:
        if st.dtype == "uint8":
            _refuse(op, "value='random' on uint8: torchvision casts normal draws to bytes, "
                        "libfeed's uint8 erase_random draws uniform bytes")
        st.opts["erase_random"] = True
        return
    vals = [float(v) for v in _flat(value)]
    if len(vals) == 1:
        vals = vals * 3
    if len(vals) != 3:
        _refuse(op, f"value={value!r}: libfeed erases with one value per channel (3)")
    if st.dtype == "uint8" and not all(0 <= v <= 255 and v == int(v) for v in vals):
        _refuse(op, f"value={value!r} on uint8: libfeed writes whole bytes 0..255")
    st.opts.update(erase_random=False, erase_value=tuple(vals))


def _erase_tv(st, op, t):
    p = float(t.p)
    if p == 0:
        return
    _erase_common(st, op, p)
    smin, smax = _range(op, "scale", t.scale)
    rmin, rmax = _range(op, "ratio", t.ratio)
    st.opts.update(erase_scale_min=smin, erase_scale_max=smax, erase_ratio_min=rmin,
                   erase_ratio_max=rmax)
    value = t.value
    if isinstance(value, str):  # v1 keeps "random" as given; v2 stores None for it
        value = None if value == "random" else value
    _erase_value(st, op, value)


def _erase_timm(st, op, t):
    p = float(t.probability)
    if p == 0:
        return
    _erase_common(st, op, p)
    if (t.min_count, t.max_count) != (1, 1):
        _refuse(op, f"min_count={t.min_count}, max_count={t.max_count}: libfeed erases at most "
                    "one box")
    mode = t.mode or "const"
    if mode == "rand":
        _refuse(op, "mode='rand': one normal colour per box has no libfeed option "
                    "(erase_random is one draw per element: mode='pixel')")
    lo, hi = (math.exp(v) for v in t.log_aspect_ratio)
    st.opts.update(erase_scale_min=float(t.min_area), erase_scale_max=float(t.max_area),
                   erase_ratio_min=lo, erase_ratio_max=hi)
    _erase_value(st, op, None if mode == "pixel" else 0.0)


def _timm_randaugment(st, op, t):
    """timm's RandAugment ("rand-m9-mstd0.5-inc1"): libfeed's randaugment with aa_inc
    (timm's increasing op set), aa_mstd and aa_num_bins = the magnitude's upper bound + 1,
    where every op's parameters are ones libfeed has."""
    from timm.data import auto_augment as aa  # the op sets, as this timm defines them

    st.once(op, "policy")
    st.at(op, _POLICY)
    st.train_only(op, "an auto-augment policy")
    ops = list(t.ops)
    if not ops:
        _refuse(op, "no ops")
    if getattr(t, "choice_weights", None) is not None:
        _refuse(op, "weighted op choice ('tweights'): libfeed draws the ops uniformly")
    names = [o.name for o in ops]
    if names != list(aa._RAND_INCREASING_TRANSFORMS):
        _refuse(op, f"op set {names}: libfeed has timm's increasing set ('inc1', aa_inc=1) and "
                    "torchvision's RandAugment set, not this one")
    first = ops[0]
    for o in ops:
        if (o.prob, o.magnitude, o.magnitude_std, o.magnitude_max, o.kwargs) != \
                (first.prob, first.magnitude, first.magnitude_std, first.magnitude_max, first.kwargs):
            _refuse(op, f"op {o.name} has other parameters than {first.name}: libfeed's are "
                        "shared by all ops")
    why = []
    if first.prob != 0.5:
        why.append(f"each chosen op is applied with probability p={first.prob:g} "
                   "(libfeed's timm RandAugment, aa_inc=1, applies each with timm's default "
                   "0.5: no option for another probability)")
    resample = first.kwargs.get("resample")
    words = ([interpolation_word(r) for r in resample] if isinstance(resample, (tuple, list))
             else [interpolation_word(resample)])
    if len(words) != 1 or words[0] not in ("nearest", "bilinear"):
        why.append(f"the geometric ops resample with {'/'.join(words)} (libfeed's "
                   "aa_interpolation is nearest or bilinear)")
    known = {"translate_const", "img_mean", "interpolation", "magnitude_std", "magnitude_max"}
    extra = sorted(set(first.hparams) - known)
    if extra:
        why.append(f"hparams {extra} have no libfeed option")
    if why:
        _refuse(op, "; ".join(why))
    mstd = float(first.magnitude_std or 0)
    if math.isinf(mstd):
        _refuse(op, "mstd > 100 (uniform magnitudes): libfeed's aa_mstd is a normal draw's "
                    "standard deviation")
    top = int(first.magnitude_max or aa._LEVEL_DENOM)
    m = float(first.magnitude)
    if not 0 <= m <= top:
        _refuse(op, f"magnitude={m:g}: libfeed takes 0..{top} (the bins' range)")
    st.opts.update(auto_augment="randaugment", aa_num_ops=int(t.num_layers),
                   aa_num_bins=top + 1, aa_magnitude=m, aa_mstd=mstd, aa_inc=True,
                   aa_interpolation=words[0],
                   aa_fill=_rgb_bytes(op, "img_mean", first.kwargs.get("fillcolor")))


_NO_OPS = {("v2", "ToPureTensor"), ("v2", "Identity")}


def _step(st, t):
    fam, name = family(t)
    op = _label(t)
    if fam is None:
        what = "a Python function" if callable(t) and not hasattr(t, "forward") else \
            f"an object of {type(t).__module__}.{name}"
        _refuse(getattr(t, "__qualname__", name),
                f"{what}: libfeed translates torchvision's and timm's own transforms only "
                "(a subclass or your own code may do anything)")
    if (fam, name) in _NO_OPS:
        return
    if name == "Lambda":
        _refuse(op, "runs Python per sample, which libfeed's C workers cannot")
    if name in ("RandomResizedCrop", "RandomResizedCropAndInterpolation"):
        return _random_resized_crop(st, op, t, fam)
    if name == "Resize" and fam != "timm":
        return _resize(st, op, t)
    if name == "CenterCrop" and fam != "timm":
        return _center_crop(st, op, t)
    if name == "RandomHorizontalFlip":
        return _flip(st, op, t)
    if name == "RandomRotation":
        return _rotation(st, op, t)
    if name == "ColorJitter":
        return _jitter(st, op, t)
    if name == "RandomGrayscale":
        return _grey(st, op, t)
    if fam == "timm":
        if name == "RandAugment":
            return _timm_randaugment(st, op, t)
        if name == "RandomErasing":
            return _erase_timm(st, op, t)
        if name in ("MaybeToTensor", "MaybePILToTensor"):
            return _to_tensor_pil(st, op, t, name == "MaybeToTensor", maybe=True)
    else:
        if name == "TrivialAugmentWide":
            return _trivial(st, op, t)
        if name == "RandAugment":
            return _randaugment(st, op, t)
        if name == "AutoAugment":
            return _autoaugment(st, op, t)
        if name in ("PILToTensor", "ToImage", "ToTensor"):
            # v2's pass a tensor through; v1's raise on one
            return _to_tensor_pil(st, op, t, name == "ToTensor", maybe=fam == "v2")
        if name == "ConvertImageDtype":
            return _to_dtype(st, op, t.dtype, True)
        if name == "ToDtype":
            return _to_dtype(st, op, t.dtype, bool(t.scale))
        if name == "Normalize":
            return _normalize(st, op, t)
        if name == "RandomErasing":
            return _erase_tv(st, op, t)
    _refuse(op, "has no libfeed equivalent (libfeed's steps: " + _ORDER_TEXT + ")")


def steps(transform):
    """The leaves of a (nested) Compose, or of a list of transforms, in order."""
    fam, name = family(transform)
    if fam in ("v1", "v2") and name == "Compose":
        for t in transform.transforms:
            yield from steps(t)
    elif isinstance(transform, (list, tuple)):
        for t in transform:
            yield from steps(t)
    else:
        yield transform


def translate(transform):
    """libfeed options equal to `transform` (see the module doc), or TypeError
    "libfeed cannot translate the transform: OP: PARAMETER: why"."""
    st = _State()
    try:
        for t in steps(transform):
            _step(st, t)
        if st.pending_resize is not None:
            _refuse(st.pending_resize[0], "a Resize(shorter side) alone gives images of different "
                                          "shapes, and a batch has one: follow it with CenterCrop "
                                          "(libfeed's augment='val')")
        if st.geometry is None:
            _refuse("the transform", "has no RandomResizedCrop or Resize: a batch needs one image "
                                     "size, and libfeed always resizes (augment='train': "
                                     "RandomResizedCrop; augment='val': Resize + CenterCrop)")
        if not st.tensor:
            _refuse("the transform", "ends with a PIL image: libfeed delivers tensors; add "
                                     "PILToTensor or ToTensor (and Normalize)")
    except _Refuse as e:
        raise TypeError(f"libfeed cannot translate the transform: {e}") from None
    opts = st.opts
    opts["dtype"] = st.dtype
    opts["layout"] = "chw"  # torchvision's tensors are C, H, W
    if st.dtype != "uint8" and not st.normalized:
        opts.update(mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))  # x/255, as ToTensor alone
    return opts
