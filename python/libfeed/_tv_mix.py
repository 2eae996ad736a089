"""MixUp/CutMix as libfeed options: torchvision's v2.MixUp, v2.CutMix,
v2.RandomChoice([...]) and v2.RandomApply([...], p), timm's Mixup (the object
or its keyword arguments as a dict).

libfeed mixes each batch in C and delivers soft labels (feed.h: mixup_alpha,
cutmix_alpha, mix_p, mix_switch_p, mix_mode, label_smoothing, num_classes).
Its CutMix box and lambda correction are timm's (correct_lam=True), which
torchvision's v2.CutMix computes alike; its partner for each sample is
timm's (the batch reversed), where torchvision's is the batch rolled by
one: for a shuffled batch, the same distribution of pairs. What libfeed has
no option for raises TypeError naming the object, the parameter and why.
"""
from ._tv_translate import family

# timm.data.Mixup's keywords and defaults (timm 1.0), for a dict of them.
TIMM_DEFAULTS = {"mixup_alpha": 1.0, "cutmix_alpha": 0.0, "cutmix_minmax": None, "prob": 1.0,
                 "switch_prob": 0.5, "mode": "batch", "correct_lam": True,
                 "label_smoothing": 0.1, "num_classes": None, "multi_label": False}


class _Refuse(TypeError):
    pass


def _refuse(op, why):
    raise _Refuse(f"{op}: {why}")


def _alpha(op, value):
    a = float(value)
    if not a > 0:
        _refuse(op, f"alpha={value!r}: Beta(alpha, alpha) needs alpha > 0")
    return a


def _torchvision(mix):
    """{"mixup": alpha, "cutmix": alpha, "p_cutmix": p, "p": p, "num_classes": n}"""
    fam, name = family(mix)
    op = f"v2.{name}" if fam == "v2" else name
    if fam == "v2" and name in ("MixUp", "CutMix"):
        return {name.lower(): _alpha(op, mix.alpha), "p": 1.0,
                "p_cutmix": 1.0 if name == "CutMix" else 0.0,
                "num_classes": mix.num_classes}
    if fam == "v2" and name == "RandomChoice":
        parts = [_torchvision(t) for t in mix.transforms]
        kinds = [("cutmix" in p, "mixup" in p) for p in parts]
        if len(parts) > 2 or len(set(kinds)) != len(kinds) or any(p["p"] != 1.0 for p in parts) \
                or any(a and b for a, b in kinds):
            _refuse(op, "libfeed chooses between one MixUp and one CutMix: "
                        f"got {[type(t).__name__ for t in mix.transforms]}")
        out = {"p": 1.0, "p_cutmix": 0.0}
        classes = {p["num_classes"] for p in parts}
        if len(classes) != 1:
            _refuse(op, f"num_classes differ between its transforms: {sorted(map(str, classes))}")
        out["num_classes"] = classes.pop()
        for prob, part in zip(mix.p, parts):
            if "cutmix" in part:
                out["cutmix"] = part["cutmix"]
                out["p_cutmix"] = float(prob)  # RandomChoice keeps p normalised to sum 1
            else:
                out["mixup"] = part["mixup"]
        return out
    if fam == "v2" and name == "RandomApply":
        if len(mix.transforms) != 1:
            _refuse(op, "applies several transforms in a row; libfeed mixes once")
        out = _torchvision(mix.transforms[0])
        out["p"] = float(mix.p) * out["p"]
        return out
    _refuse(op, "not a MixUp/CutMix libfeed knows: give torchvision's v2.MixUp, v2.CutMix, "
                "v2.RandomChoice([v2.MixUp(...), v2.CutMix(...)]), v2.RandomApply([...], p), "
                "or timm's Mixup (or a dict of its arguments)")


def _timm(args, op):
    args = dict(args)
    enabled = args.pop("mixup_enabled", True)  # the object's switch (timm's train loop sets it)
    a = dict(TIMM_DEFAULTS)
    unknown = sorted(set(args) - set(a))
    if unknown:
        _refuse(op, f"unknown argument(s) {unknown}: timm's Mixup takes {sorted(a)}")
    a.update(args)
    if a["cutmix_minmax"] is not None:
        _refuse(op, f"cutmix_minmax={a['cutmix_minmax']!r}: libfeed's CutMix box comes from "
                    "Beta(cutmix_alpha), not a uniform box size")
    if a["multi_label"]:
        _refuse(op, "multi_label=True: several labels a sample come from the dataset; give "
                    "multi_label=True to the loader (its soft labels are then multi-hot rows, mixed)")
    mixup, cutmix = float(a["mixup_alpha"]), float(a["cutmix_alpha"])
    if cutmix > 0 and not a["correct_lam"]:
        _refuse(op, "correct_lam=False: libfeed's CutMix lambda is always the box's area "
                    "(timm's correct_lam=True, torchvision's v2.CutMix)")
    if not enabled:
        mixup = cutmix = 0.0
    elif mixup <= 0 and cutmix <= 0:
        _refuse(op, "mixup_alpha=0 and cutmix_alpha=0: nothing to mix (timm's Mixup asserts); "
                    "for smoothing alone give label_smoothing=")
    mode = str(a["mode"])
    if mode not in ("batch", "pair", "elem"):
        _refuse(op, f"mode={mode!r}: libfeed's mix_mode is batch, pair or elem")
    out = {"mixup_alpha": max(mixup, 0.0), "cutmix_alpha": max(cutmix, 0.0),
           "mix_p": float(a["prob"]), "mix_switch_p": float(a["switch_prob"]), "mix_mode": mode,
           "label_smoothing": float(a["label_smoothing"])}
    if a["num_classes"] is not None:
        out["num_classes"] = int(a["num_classes"])
    return out


def _is_timm_mixup(mix):
    fam, name = family(mix)
    return fam == "timm" and name in ("Mixup", "FastCollateMixup")


def translate_mix(mix):
    """libfeed options for `mix` (see the module doc); TypeError for what
    libfeed has no option for. num_classes is left out when the object does
    not name it (libfeed then uses the dataset's)."""
    try:
        if isinstance(mix, dict):
            return _timm(mix, "Mixup arguments")
        if _is_timm_mixup(mix):
            args = {k: getattr(mix, k) for k in ("mixup_alpha", "cutmix_alpha", "cutmix_minmax",
                                                 "switch_prob", "mode", "correct_lam",
                                                 "label_smoothing", "num_classes")}
            args["prob"] = mix.mix_prob
            args["multi_label"] = getattr(mix, "multi_label", False)
            args["mixup_enabled"] = mix.mixup_enabled
            return _timm(args, "timm Mixup")
        t = _torchvision(mix)
        # torchvision's mixing does not smooth (its recipe smooths in the loss):
        # label_smoothing stays the caller's to give.
        out = {"mixup_alpha": t.get("mixup", 0.0), "cutmix_alpha": t.get("cutmix", 0.0),
               "mix_p": t["p"], "mix_mode": "batch"}
        if "mixup" in t and "cutmix" in t:
            out["mix_switch_p"] = t["p_cutmix"]
        if t["num_classes"] is not None:
            out["num_classes"] = int(t["num_classes"])
        return out
    except _Refuse as e:
        raise TypeError(f"libfeed cannot translate mix=: {e}") from None
