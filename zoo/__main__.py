"""The zoo runner: ``python -m zoo [--ci] [--only NAME...] [--steps N]`` (``scripts/zoo``).

Runs every selected entry honest (it must close cleanly) and, when the honest run closed,
once with each of its framework's tampers (each must be poisoned), every run in its own
subprocess with a timeout.
Prints the table; a run of the whole zoo (no ``--ci``, no ``--only``) also writes it to
``docs/zoo.md``, as does ``--write PATH``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zoo.entries import BY_NAME, ENTRIES, Entry
from zoo.harness import TAMPERS, Mode, RunOutcome

ROOT = Path(__file__).resolve().parents[1]

INTRO = """\
# The model zoo

The zoo trains the models people actually train, built from their libraries' own classes
(Hugging Face `transformers`, `torchvision`, `torch.nn`, Flax linen and NNX) at tiny sizes,
with the loops their communities write: learning-rate warmup from 0, gradient clipping,
gradient accumulation, autocast, optax chains, BatchNorm statistics, dropout keys, data
parallelism. Each library model that its community also trains in mixed precision has a
`-bf16` entry: the forward pass under `torch.autocast(bfloat16)` (the Trainer's `bf16=True`),
or Flax's `dtype=`. Float16 with loss scaling, the Trainer's `fp16=True` and the `--amp` of
torchvision's reference script (`torch.autocast(float16)` and a `torch.amp.GradScaler` with
torch's defaults), is `gpt2-f16`. A `resnet18-f16` in that recipe was tried and left out: on
the zoo's random images its float16 gradients overflow at every scale from 2^16 down to 2^13,
so its scaler skipped the first four steps (and five of eight), and a tamper of the last step
would scale an update of 0. Data are synthetic and drawn in the process; nothing is
downloaded. Every entry
runs three times with every step checked (`SamplingPolicy.DEBUGCheckEvery(1)`), each run in a
subprocess of its own:

- **honest**: the loop as written. It must close cleanly; a `ZKDVPoisonedError` here is a
  false alarm, any other exception an error (the first line of its message is shown);
- **tampered**, twice (only after an honest pass): production does something the attested
  step does not, at the last step, and the session must end poisoned. Under DDP only rank 1
  tampers.
  - **update x(1+r)**, both frontends: production's update of one parameter (torch: the
    first weight of the model, or the recipe's choice; JAX: the first parameter leaf) is
    scaled by `1 + r`, where `r` is the protocol's documented detection threshold for a
    miscompiled update in the entry's compute dtype (`docs/soundness.md`, "Faults caught":
    0.1% in f32, 1% in f16, 10% in bf16). Torch rewrites the parameter after
    `optimizer.step()`; JAX changes the production program's output before it is committed
    (an execution fault). This tests the documented threshold on real models;
  - **gradient x(1+r)** (torch): a hook scales that parameter's gradient by the same
    `1 + r` on the backward pass. An optimizer step dilutes a gradient's error (AdamW
    normalizes it away, momentum averages it), so this is the subtler of the two. (Until
    2026-12-03 it was 1.001 in every dtype: in bf16 that is a quarter of an ulp, below any
    replay's noise; see "When the gradient tamper is not caught".)
  - **state +0.01** (JAX): one parameter coordinate is increased by 0.01 between the last two
    steps, outside the attested step. (Torch compares each step's state with what the last
    one left bit for bit, in process, whatever the model.)

Above the table, the count of entries that passed honestly and caught their update tamper,
and of those that caught every tamper, in f32 and in narrower dtypes. The first count is the
zoo's bar: the update tamper is the one both frontends share, and it has the size the
protocol documents as its detection threshold, so an entry whose honest run closes cleanly
and whose update tamper poisons its session holds the protocol to its word on that model. The
second tamper of each entry probes past that word, and where it is missed the section below
the table that names the entry gives the measured reason (for the gradient tamper, "What a
check sees of the gradient tamper"). Columns: the worst
honest margin is the largest `CheckResult.margin()` (|difference| /
allowed) over the honest run's checks, followed by the number of values its state checks
admitted as outliers when there were any (discrete flips, `docs/protocol.md` §8a); seconds
per step is the median over the steps after the first, whose time (lowering, the Rust
passes, compiling; for torch, the seal of the AOT Inductor package now runs on the committer
thread) is shown on its own. In an honest torch run of four steps that median is mostly the
seal's: it compiles C++ on the same two cores, and while it holds the committer thread the
loop stops when its overlap window is full. Measured on 2026-12-03 with
`python -m zoo.worker gpt2 honest 8 DIR OUT [--seal]`: without the seal every step after the
first took 0.07 to 0.18 s; with it, 0.14 to 0.19 s, except the third step, which waited 69.7 s
for the committer (on a machine running a zoo run beside it). Checks run on the session's
committer thread, so a step's time need not include its checks; `close()` waits for those
still queued, and its time is the last column. One CPU thread for torch
(`torch.set_num_threads(1)`) on a shared 2-core machine, so the times are indicative only.

Entries that fail here fail in `zkdv` or in a documented limit of it; the recipes are not
bent to avoid a failure. The torch entries keep their configurations' default dropout
(`zkdv.torch` commits the masks production draws), except `gpt2`, which sets it to 0 to
compare with `gpt2-dropout`.

Rerun with `scripts/zoo` (all entries, rewrites this page), `scripts/zoo --only NAME...`, or
`scripts/zoo --ci` (the subset CI runs; `python/tests/test_zoo.py` asserts on part of it).
`--steps N` sets the steps per run. `--audit` makes the honest run retain its evidence and
adds a column: `zkdv audit --fraction 1` of it, with the worst snapshot's noise and the drift
per snapshot (`docs/protocol.md` section 8a; an honest run must pass). `--keep DIR` works in
`DIR` and leaves the transcripts (and that evidence) there. `--resolve` retries a
missed tamper at x2, x4, x8 and x16 and adds the smallest factor caught to its cell: how far
the checks can certify that quantity where the precision itself does not determine it to `r`.

## How a one-leaf tamper is caught

The documented thresholds come from a small MLP whose tampered kernel holds most of its
parameters, tampered at every step, so the update check's one challenged coordinate finds
it. In the zoo one parameter is tampered at one step, and it is the state check that must
see it. Its per-value bound is `1e-6 + 1e-5 * |x|` (plus the ensemble's spread term): under
AdamW at `lr = 1e-3` an update error of 0.1% is about `1e-6`, the bound's absolute term, and
in bf16 a gradient scaled by 1.1 moves the AdamW moments by a few percent, inside 32
spreads. Until 2026-12-03 `t5` and `vit` closed cleanly with their update tamper (worst
margins 0.46 and 0.97) and gpt2-bf16 and llama-bf16 with a gradient x1.1 (0.67 and 0.93).
Such a tamper moves its whole leaf one way, which rounding noise does not: the state check's
leaf bias test (`docs/protocol.md` §8a, figures in `docs/soundness.md`, "The leaf bias
test") catches all four now. vit-bf16, added that day, closed with its update tamper x1.1
(worst margin 0.944): its tampered leaf is the class token, 32 values whose AdamW update
takes both signs, so their mean does not move, and the scale test then ran in f32 programs
only. It now runs in bf16 too, its limit taken from the ensemble's own member scales (honest
bf16 leaves scale by up to 104% where a gradient is only rounding, and their members as
much), and catches it: a scale of 0.0996 against a limit of 0.051.

## When the update tamper is not caught

flax-lm1b (f32) missed it until 2026-12-03. JAX replays production's own program, so its
fault, which changes the program's output after the update was sketched, showed only where the
delivered parameters' sketches meet those accumulated from the committed updates, at
`close()`. That comparison must allow for rounding (XLA rounds `pre + delta` once per step)
and allows the session tolerance, `1e-6 + 1e-5 * |x|` per sketch value, plus a drift bound.
The tamper, `1e-3` of an AdamW update at the end of a warmup, adds about `6e-7` to each value
of the tampered leaf (the first in tree order, a bias of 64 values around `2e-3`): inside the
absolute term. The session now also replays the last segment at `close()` and compares the
state it ends in with the delivered one value for value (`docs/jax.md`, "Closing a segment bit
for bit"): the rerun (`scripts/zoo --only flax-lm1b`) is poisoned at step 4, all 64 values of
the tampered leaf differing.

mobilenet-v3-small-bf16: the tampered leaf, the first convolution (432 values), has an
update that bf16 autocast leaves undetermined on four 32x32 images. Measured on 2026-12-03
with `python -m zoo.footprint mobilenet-v3-small-bf16 --tamper update --leaf "update of
features.0.0.weight"` (the tampered run's figures): at the last step the ensemble's spread
of that update's sketch values is 1.6 times the values themselves (median), and one member
alone scales the whole leaf by 43%. The scale test's limit there is 3.42 (8 times that
member scale) and the mean test's 1; the tampered run's leaf measured a scale of -0.29 and a
mean of 0.10 units, the tamper's +0.1 lost in the honest disagreement. The first
convolution's momentum buffer is as uncertain (a member scale of 47%), which is why the
gradient tamper is missed too. This is the same cause as resnet18-bf16's gradient tamper
below: BatchNorm over a few values per channel, in bf16, makes two correct implementations
differ by more than 10% of a step.

## When the gradient tamper is not caught

`python -m zoo.footprint NAME` measures a torch entry's gradient tamper against its own
honest noise:
it runs the entry honest and tampered with every state check's ensemble spread measured, and
compares, in noise units (`d / max(ulp, spread)`), the tamper's footprint on the optimizer
state (tampered minus honest committed values at the last step, where the replay is the
same) with the honest run's difference from its replay. Measured on 2026-12-02, 4 steps:

| entry | largest footprint | honest noise there (rms) | largest honest bias |
| --- | --- | --- | --- |
| gpt2-bf16 | 0.042 (AdamW moments of the embedding) | 0.18 | 0.067 |
| llama-bf16 | 0.030 (every leaf, through gradient clipping's norm) | 0.10 | 0.024 |
| efficientnet-b0 (f32) | 0.105 (the first convolution's momentum buffer) | 0.12 | 0.138 |

A 0.1% gradient scaling is a quarter of a bf16 ulp. Its footprint is a tenth to a third of
the honest per-value noise, and of the size of the signed mean an honest bf16 run keeps over
a whole leaf (the bias column, over leaves of at least 1024 values: in gpt2-bf16 every Adam
second moment shifts by about 0.06 units in one direction at one step and in the other at
the next). No per-value bound can see it, and a test of a leaf's mean that did would raise
false alarms on honest bf16 runs. The protocol's bf16 detection threshold for a miscompiled
update is 10% (`docs/soundness.md`, "Faults caught"); the f32 entries catch the same tamper
because f32 noise is 2^16 times smaller, except efficientnet-b0: on four 32x32 images its
deep stack of BatchNorms (a few values per channel in the last stages) amplifies f32
rounding until its perturbation ensemble moves the first convolution's gradient by about 1%,
and the tamper's 0.1% is again below the honest noise there. The update tamper, which
scales what the optimizer step applies rather than what it reads, is caught in all three.

Since 2026-12-03 the gradient tamper has its dtype's size (x1.1 in bf16), which the leaf
bias test catches in every bf16 transformer (in gpt2-bf16 and llama-bf16 the AdamW second
moment of the tampered matrix moves by 4 and 2.8 spreads on average), and in none of the three
torchvision networks under bf16 autocast.
resnet18-bf16 closes with it (worst margin 0.957). `python -m zoo.footprint resnet18-bf16`
(4 steps, 2026-12-03) gives the reason:

- the tamper moves one optimizer-state leaf, the first convolution's SGD momentum buffer
  (9,408 values), by 0.098 noise units per value on average, where the honest run differs
  from its replay by 0.62 units (rms): the tamper is a tenth of a spread;
- a scaled gradient moves a momentum buffer along its change over the step, and along that
  direction the tamper is 0.58% of the change. Honest production and replay disagree along
  their own step's change by up to 47% of it (layer3.1.conv1's buffer at step 2): under bf16
  autocast, BatchNorm over four 32x32 images makes two correct implementations differ by
  nearly half a step, coherently, over a whole leaf;
- the check's own bias test agrees: the largest leaf mean is 0.22 units in the tampered run
  and 0.34 in the honest one, against a limit of 1.

No test of these values, per value or over a leaf, can tell this tamper from the honest
disagreement of the same run: 10% of this gradient is below what bf16 autocast itself makes
of it in this network. The two other torchvision networks in bf16 miss it for the same cause.
`python -m zoo.footprint efficientnet-b0-bf16`: the tamper moves the first convolution's
momentum buffer (864 values) by 0.0056 noise units per value against an honest 0.22 (rms), and
honest production and replay disagree along a step's change by up to 1.96 times that change
(a squeeze-excitation layer's buffer at step 2). mobilenet-v3-small-bf16's first convolution
is as undetermined (see "When the update tamper is not caught"). efficientnet-b0 (f32) misses
its 0.1% gradient tamper for the reason above.

## What the precision itself does to the tampered parameter

`python -m zoo.conditioning NAME` asks the same question without ZKDV. It trains a torch
entry eagerly up to its last step and computes that step's gradient and update of the
tampered parameter from the same state, batch and random draws three times: in float64
(the reference), in the entry's own precision (what production computes), and in its own
precision from parameters nudged by a relative `2^-20` (a second honest implementation rounds
at least that differently). *Error* is own against the reference, *sensitivity* own against
nudged, both relative to the reference's norm. Where either reaches the tamper's size `r`,
the precision alone moves the quantity by as much as the tamper, and no check that recomputes
the step elsewhere can certify it to `r`. Measured on 2026-12-03, 4 steps (error /
sensitivity):

| entry | r | gradient | update | tampers missed |
| --- | --- | --- | --- | --- |
| resnet18-bf16 | 0.1 | **0.89 / 0.99** | 0.021 / 0.023 | gradient |
| mobilenet-v3-small-bf16 | 0.1 | **0.68 / 0.64** | **0.47 / 0.44** | update, gradient |
| efficientnet-b0-bf16 | 0.1 | **0.92 / 1.1** | 0.0028 / 0.0033 | gradient |
| efficientnet-b0 | 0.001 | 8.7e-5 / **9.6e-4** | 1.8e-7 / 1.8e-6 | gradient |
| t5-bf16 | 0.1 | 0.057 / 0.031 | 0.043 / 0.021 | none |
| gpt2-bf16 | 0.1 | 0.0041 / 0.0013 | 0.0035 / 0.0012 | none |
| gpt2-f16 (GradScaler) | 0.01 | 4.3e-4 / 2.2e-4 | 4.2e-4 / 2.0e-4 | none |
| llama-bf16, qwen2-bf16, bert-mlm-bf16, vit-bf16 | 0.1 | at most 0.0046 | at most 0.004 | none |
| resnet18 | 0.001 | 5.8e-5 / 1.8e-4 | 1.8e-6 / 5.5e-6 | none |
| mobilenet-v3-small | 0.001 | 7.4e-6 / 8.4e-5 | 4.1e-6 / 4.7e-5 | none |
| the other f32 entries | 0.001 | at most 2.1e-5 | at most 7.3e-5 | none |

Every torch tamper the zoo misses is one the precision itself reaches (bold; efficientnet-b0's
sensitivity is 0.96 of its `r`), and every one it catches lies above what the precision does
(the closest, t5-bf16's gradient, is 1.75 times its error). Under bf16 autocast
the first convolution's gradient of these three BatchNorm networks on the zoo's synthetic
images is rounding noise: a nudge of one part in a million to the parameters changes it by
64% to 110%. More data does not cure it. With `--images 16` (four times the images) the
three gradients are still 30%, 19% and 56% from the reference, and with `--pixels 64` (four
times the pixels) 35%, 18% and 19%; with both doubled (`--images 8 --pixels 64`) 36%, 21% and
10%, and resnet18-bf16's update then reaches 13% too. The measure is of synthetic data
(Gaussian images, random labels), whose gradients carry little signal. Data with something to
learn does not cure it either: with `--signal 0.5` (each image its label's fixed random
template plus half as much noise; 2026-12-04) the three gradients are 85%, 57% and 277% from
the reference (sensitivities 114%, 57%, 96%; mobilenet's update 36%), and with
`--signal 0.5 --images 16` resnet18-bf16's and efficientnet-b0-bf16's are still 26% and 20%
(sensitivities 21% and 16%). A trained network on real images may be better conditioned,
which this tool cannot show without downloading them.

### What a check sees of the gradient tamper

No check compares a gradient: the state check compares the optimizer state and the update
check the update, both downstream of the optimizer step. Since 2026-12-06 the tool also runs
the last step a fourth time, in the entry's own precision with the gradient tamper's hook,
and prints its *footprint*: how far the tampered gradient moves the update, relative to the
reference update. Under momentum the last gradient is one term of the update, so the
footprint can be far below `r`. Measured on 2026-12-06, 4 steps (the update's error and
sensitivity are of this run too):

| entry | r | update: error / sensitivity | footprint on the update | gradient tamper |
| --- | --- | --- | --- | --- |
| resnet18-bf16 | 0.1 | 0.0081 / 0.0098 | 0.0011 (below) | missed |
| mobilenet-v3-small-bf16 | 0.1 | 0.30 / 0.29 | 0.066 (below) | missed |
| efficientnet-b0-bf16 | 0.1 | 0.00021 / 0.000048 | 0.000015 (below) | missed |
| t5-bf16 | 0.1 | 0.042 / 0.020 | 0.024 (below) | caught |
| gpt2-bf16 | 0.1 | 0.0035 / 0.0012 | 0.015 | caught |
| llama-bf16 | 0.1 | 0.0019 / 0.00056 | 0.011 | caught |
| resnet18 | 0.001 | 6.8e-7 / 1.6e-6 | 2.7e-5 | caught |
| efficientnet-b0 | 0.001 | 1.2e-7 / 5.0e-7 | 9.1e-7 | missed, caught at x1.004 |

In the three torchvision networks under bf16 the tampered gradient changes the committed
update by less than bf16 itself changes it: by 0.11% where the precision moves it by up to
0.98%, by 6.6% against 30%, and by 0.0015% against 0.021%. Their optimizer is SGD with
momentum, whose buffer is the update divided by `-lr`, so the state check sees the same
relative footprint, and it points along the gradient, which is itself rounding noise in these
leaves (error 0.84 to 1.5), so it is not a coherent shift that the leaf bias test could find.
A gradient tamper whose footprint is below the precision's own effect can still be caught
where the optimizer state keeps it apart: t5-bf16's AdamW second moment moves one way over
the whole leaf, which the leaf bias test sees. A check of these three networks' first
convolution cannot tell a gradient scaled by 1.1 from an honest second implementation.

## Missed tampers, retried larger

`--resolve` retries a missed tamper at x2, x4, x8 and x16 (run on 2026-12-03 with the table
below). It measures how far the checks certify a quantity that the precision itself leaves
undetermined to the threshold `r` (section "What the precision itself does to the tampered
parameter"):

| entry | tamper | precision's own noise (error / sensitivity) | missed at | caught from |
| --- | --- | --- | --- | --- |
| resnet18-bf16 | gradient | 0.89 / 0.99 | x1.1, x2, x4 | x8 |
| mobilenet-v3-small-bf16 | update | 0.47 / 0.44 | x1.1, x2, x4 | x8 |
| mobilenet-v3-small-bf16 | gradient | 0.68 / 0.64 | x1.1, x2, x4, x8 | x16 |
| efficientnet-b0 (f32) | gradient | 8.7e-5 / 9.6e-4 | x1.001, x1.002 | x1.004 |
| efficientnet-b0-bf16 | gradient | 0.92 / 1.1 | x1.1, x2, x8, x16 | not caught up to x16 |

efficientnet-b0's row is finer than `--resolve` can say (it reports "caught from x2"): it was
measured with `python -m zoo.worker efficientnet-b0 gradient 4 DIR OUT --size R` for `R` =
0.002 and 0.004. efficientnet-b0-bf16's row (2026-12-04, at `be68d31`, with the row floor) was
measured the same way at x2, x8 and x16 (x4 not run): each run closed with the honest run's
worst margin (0.998) and outlier count, its final state and last update commitment differing
from the honest run's, so the tamper acted and stayed inside every bound: the first
convolution's gradient spreads by about its own size over the ensemble, and its bound is 32
spreads.

So where bf16 autocast leaves a leaf undetermined, a state check certifies it only to a factor
of 8 to 16, or not even to 16 (efficientnet-b0-bf16's gradient): a fault or a prover that
scales the first convolution's update or gradient of these networks by less than that passes.
Its per-value bound is 32 times the ensemble's spread, and where the spread is the size of the
value itself (mobilenet's first convolution, 1.6 times), that bound admits many times the
value. The leaf scale test catches the x8 update (a scale of 4.17 against a limit of 3.70). In
f32 the one such quantity in the zoo, efficientnet-b0's first convolution's gradient, is
certified to 0.4%, four times its precision's sensitivity.

## A false alarm: efficientnet-b0-bf16, and the row floor

Until 2026-12-04 the honest run of efficientnet-b0-bf16 was poisoned at step 1 by its state
check. The state checks of one honest run (`replay_snapshot_interval` 12, no seal) were
dumped with their committed values, the replay's and all eight ensemble members', and the run
repeated at `ec5bb00`, the commit before the torch optimizer change `0ac1c56` that had seemed
to start it:

- **Both commits fail** on this machine, on the classifier's momentum buffer (10 x 1280
  values, 13 outliers allowed): 41 values beyond their bound at `6e379e8`, 19 at `ec5bb00`.
  The committed values and the nominal replay are the same at both commits (each row's
  relative difference agrees to three digits); only the members differ, because the program
  gained an input (`betas[0]`, momentum) and the members' input perturbations are drawn by
  position. The earlier pass at `ec5bb00` was a lucky draw of the ensemble, not a regression.
- **The leaf is undetermined and its rows move together.** Every member moved each of the ten
  rows by 5% to 100% of its norm (their scales of the whole leaf: -0.29 to -0.39), and the
  production step moved them by as much (a scale of -0.24). The outliers were almost all in
  one row (41 of 41; 16 of 19, the rest in another), each beyond 32 times its own spread but
  within its row's: the members sample the row's motion in eight directions, and a value
  whose inputs lie across all of them gets a spread far below its row's.
- **The fix** (`zkdv_protocol::noise::row_spread`, `docs/protocol.md` section 8a, "Row
  floor"): in a program that computes in a narrow float, each pair's spread is raised to a
  sixteenth of the root mean square spread of its row (the values sharing the leaf's first
  index). With a thirty-second, 0 and 1 of the outliers remained; with a sixteenth, none. The
  dumped leaf is `protocol/tests/row_spread.rs`'s fixture: it fails value by value, passes
  with its rows, and still fails with its committed values doubled (80 outliers).
- **What it does not cover: a whole row.** The same dump shows, at step 0, 150 outliers in the
  momentum buffer of `features.6.3.block.0.0` (a 1x1 convolution, 1152 x 192): all in one row
  (output channel 453), in both runs, each beyond its row's floor too but within its cap. The
  production step moved that channel's whole row and no member did. The leaf allows 222
  outliers, so one such row passes and two would not. Counting a leaf's outliers by the rows
  that hold them would admit such flips without admitting scattered ones; it is not done, and
  until it is, an honest narrow-float run whose step flips two output channels of one weight
  can raise a false alarm.
- **Other seeds** (2026-12-06, `python -m zoo.worker NAME honest 4 DIR OUT --seed N`, which
  draws a torch entry's initial weights and synthetic data from seed `N`; no seal). The three
  torchvision networks under bf16, honest, seeds 1 to 3, with the table's run (seed 0) last:

  | entry | closed cleanly | worst margin | outliers admitted |
  | --- | --- | --- | --- |
  | resnet18-bf16 | 4 of 4 | 0.943, 0.929, 0.862; 0.511 | 3, 0, 1; 2 |
  | mobilenet-v3-small-bf16 | 4 of 4 | 0.503, 0.393, 0.646; 0.937 | 0, 0, 0; 0 |
  | efficientnet-b0-bf16 | 4 of 4 | 0.992, 0.9995, 0.959; 0.995 | 23, 176, 7; 100 |

  No false alarm in twelve honest runs. efficientnet-b0-bf16 is the entry that lives on its
  outlier allowance: seed 2 admitted 176 values over its state checks (the outlier count is
  summed over the run's checks, the allowance is per leaf and check), and the values it kept
  reached 0.9995 of their bounds. It is the entry to watch for the risk above.
- **What it costs the tampers**, rerun at `a670cf3` (the three torchvision networks) and
  `81d0ea1` (the seven transformer entries) with `scripts/zoo --only`: see the table below;
  no tamper that was caught before is missed now.

## On a GPU

`scripts/device-check` runs five of the single-device JAX entries on a lent GPU
(`JAX_PLATFORMS=cuda`, the machine's own jax), every step checked, honest and tampered. On one
NVIDIA H200 on 2026-12-04 (jax 0.11.2, flax 0.12.10, optax 0.2.8: the only versions there):

| entry | before `81d0ea1` | at `81d0ea1` | worst honest margin | tampers caught |
| --- | --- | --- | --- | --- |
| flax-mnist-cnn | pass | pass | 0.288 | update x1.001, state +0.01 |
| flax-lm1b-bf16 | pass | pass | 0.131 | update x1.1, state +0.01 |
| flax-resnet-f16-dynscale | FALSE ALARM (state) | pass | 0.00245 | update x1.01, state +0.01 |
| flax-sst2-lstm | FALSE ALARM (update) | pass | 0.0333 | update x1.001, state +0.01 |
| flax-nnx-mlp | FALSE ALARM (update) | pass | 0.303 | update x1.001, state +0.01 |

`81d0ea1` made the two GPU changes of `docs/jax.md` ("On a GPU"): programs compiled with XLA's
deterministic ops, and TensorFloat-32 products in the update checks' ensembles. The torch
entries did not run there (`docs/torch.md`).

A second H200 ran them again at `1ed745e` with `--audit` (the same versions): 5 of 5 honest
runs passed, every tamper was caught, and `zkdv audit --fraction 1` of each honest run's
evidence passed there and, with another seed, on a CPU machine without a GPU, with the same
figures (`docs/jax.md`, "Audits of GPU runs"):

| entry | worst honest margin | audit, every step (snapshot, leaf, drift) | s/step | first step s |
| --- | --- | --- | --- | --- |
| flax-mnist-cnn | 0.0924 | pass (0.134, 0.501, 0.0151) | 0.116 | 2.23 |
| flax-lm1b-bf16 | 0.0234 | pass (0.719, 0.844, 0.0372) | 0.236 | 15.2 |
| flax-resnet-f16-dynscale | 0.0298 | pass (0.136, 0.215, 0.00154) | 0.0729 | 6.21 |
| flax-sst2-lstm | 0.0246 | pass (0.343, 0.421, 0.00856) | 0.0475 | 5.56 |
| flax-nnx-mlp | 0.964 | pass (0.439, 0.458, 0.0437) | 0.0191 | 1.38 |

The worst honest margins differ from the first H200 run's: each run draws its challenges
anew. flax-nnx-mlp's 0.964 is its step-3 update check's optimizer-state value (committed
-2.7097e-4, replayed -2.7000e-4; the check records hold both): a difference of 9.7e-7 within
the fixed bound's absolute term, 1e-6. A value beyond the fixed bound is compared again with
its ensemble's spread (TensorFloat-32 members on a GPU), so this is not a near false alarm.
"""


@dataclass
class Row:
    """One entry's line of the table."""

    entry: Entry
    honest: RunOutcome
    tampered: dict[Mode, RunOutcome]
    """The tampered runs, by tamper (none when the honest run did not close)."""
    steps: int
    audit: str | None = None
    resolved: dict[Mode, str] = field(default_factory=dict)
    """With ``--resolve``, per missed tamper: the smallest larger size caught
    (:data:`RESOLVE_FACTORS`), or that none was."""


RESOLVE_FACTORS = (2.0, 4.0, 8.0, 16.0)
"""The factors ``1 + r`` a missed tamper is retried at with ``--resolve``, smallest first."""


def run_once(
    entry: Entry,
    mode: str,
    steps: int,
    work: Path,
    timeout: float,
    seal: bool,
    retain: bool = False,
    size: float | None = None,
) -> RunOutcome:
    """Run ``entry`` once in a subprocess; a timeout or a crash becomes an error outcome.
    ``retain``: the session retains all its evidence, for an audit. ``size``: the tamper's
    relative size, if not its precision's (:func:`zoo.harness.update_size`)."""
    suffix = "" if size is None else f"-{size:g}"
    directory = work / f"{entry.name}-{mode}{suffix}"
    out = work / f"{entry.name}-{mode}{suffix}.json"
    env = dict(os.environ)
    env.pop("ZKDV_ZOO_RETAIN", None)
    if retain:
        env["ZKDV_ZOO_RETAIN"] = "all"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.setdefault("JAX_PLATFORMS", "cpu")
    if entry.devices > 1:
        flag = f"--xla_force_host_platform_device_count={entry.devices}"
        env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {flag}".strip()
    command = [sys.executable, "-m", "zoo.worker", entry.name, mode, str(steps)]
    command += [str(directory), str(out)] + (["--seal"] if seal else [])
    command += [] if size is None else ["--size", repr(size)]
    try:
        result = subprocess.run(
            command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return RunOutcome(status="error", message=f"timed out after {timeout:.0f} s")
    if result.returncode != 0 or not out.exists():
        tail = [line for line in result.stderr.strip().splitlines() if line.strip()]
        reason = tail[-1] if tail else f"exit status {result.returncode}"
        return RunOutcome(status="error", message=f"crashed ({result.returncode}): {reason}")
    data = json.loads(out.read_text())
    if data.get("worst_margin") == "inf":
        data["worst_margin"] = float("inf")
    outcome = RunOutcome(**data)
    if outcome.status == "error":
        outcome.message += _diagnostic(result.stderr)
    return outcome


def _diagnostic(stderr: str) -> str:
    """The first MLIR diagnostic (``error: ...``) a failed run printed, shortened to the
    operation it names: torch-mlir prints the reason a lowering failed, not its exception."""
    for line in stderr.splitlines():
        if line.startswith("error:"):
            named = re.search(r'name = "([^"]+)"', line)
            text = line[len("error:") :].split(":")[0].strip()
            return f" [{text}: {named.group(1)}]" if named else f" [{line[:200]}]"
    return ""


def run_entry(
    entry: Entry,
    steps: int,
    work: Path,
    timeout: float,
    seal: bool,
    audit: bool = False,
    resolve: bool = False,
) -> Row:
    """The honest run, then, if it closed, one run per tamper of the entry's framework; with
    ``audit``, the honest run retains its evidence and ``zkdv audit`` replays every step of
    it; with ``resolve``, a missed tamper is retried larger (:func:`resolution`)."""
    honest = run_once(entry, "honest", steps, work, timeout, seal and entry.seal, retain=audit)
    tampered: dict[Mode, RunOutcome] = {}
    audited = None
    if honest.status == "closed":
        if audit:
            audited = audit_run(work / f"{entry.name}-honest", timeout)
        for mode in TAMPERS[entry.framework]:
            tampered[mode] = run_once(entry, mode, steps, work, timeout, seal=False)
    resolved = {
        mode: resolution(entry, mode, steps, work, timeout)
        for mode, run in tampered.items()
        if resolve and run.status == "closed"
    }
    return Row(entry, honest, tampered, steps, audited, resolved)


def resolution(entry: Entry, mode: Mode, steps: int, work: Path, timeout: float) -> str:
    """The smallest of :data:`RESOLVE_FACTORS` at which ``mode`` is caught, as
    ``caught from xF`` (the factor before it was not), or ``not caught up to xF``."""
    for factor in RESOLVE_FACTORS:
        run = run_once(entry, mode, steps, work, timeout, seal=False, size=factor - 1)
        if run.status == "poisoned":
            return f"caught from x{factor:g}"
        if run.status == "error":
            return f"x{factor:g}: error: {run.message}"
    return f"not caught up to x{RESOLVE_FACTORS[-1]:g}"


def zkdv_command() -> list[str]:
    """The ``zkdv`` command: the cargo binary when one is built (release first), else the
    one the Python package carries (``python -m zkdv``, the same Rust code in the extension),
    as on a machine with the extension and no Rust toolchain."""
    for profile in ("release", "debug"):
        cli = ROOT / "target" / profile / "zkdv"
        if cli.exists():
            return [str(cli)]
    return [sys.executable, "-m", "zkdv"]


def audit_run(directory: Path, timeout: float) -> str:
    """``zkdv audit --fraction 1`` of each transcript under ``directory`` (one per DDP rank):
    ``pass`` or ``FAILED``, with the worst snapshot comparison's noise (root mean square, in
    noise units), the worst leaf's and the drift per snapshot, or why the audit could not
    run."""
    transcripts = sorted(p.parent for p in directory.rglob("records.cborl"))
    if not transcripts:
        return "error: no transcript"
    cli = zkdv_command()
    cells = []
    for transcript in transcripts:
        command = [*cli, "audit", str(transcript), "--fraction", "1", "--seed", "zoo"]
        try:
            result = subprocess.run(
                command + ["--json"], capture_output=True, text=True, timeout=timeout
            )
            data = json.loads(result.stdout)
        except (subprocess.TimeoutExpired, json.JSONDecodeError) as error:
            cells.append(f"error: {type(error).__name__}")
            continue
        report = data.get("report")
        if report is None:
            cells.append(f"error: {data.get('error', result.stderr.strip()[-200:])}")
            continue
        worst, drift = report["noise"]["worst_rms"], report["noise"]["drift"]
        leaf = report["noise"].get("worst_leaf_rms", 0.0)
        noise = f"noise {worst:.3g}, leaf {leaf:.3g}, drift {drift:.3g}"
        failure = report.get("failure")
        if data.get("passed"):
            cells.append(f"pass ({noise})")
        elif failure is not None:
            cells.append(f"FAILED at step {failure['step']}: {failure['what']} ({noise})")
        else:
            cells.append(f"FAILED: an expectation ({noise})")
    return "; ".join(cells)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def verdict(row: Row) -> str:
    """``pass``, ``FALSE ALARM: ...`` or ``error: ...``."""
    honest = row.honest
    if honest.status == "closed":
        return "pass"
    if honest.status == "poisoned":
        return f"FALSE ALARM: {honest.message}"
    return f"error: {honest.message}"


def _outliers(outcome: RunOutcome) -> str:
    """``"; N outliers"`` when the run's state checks admitted any, else nothing."""
    return f"; {outcome.outliers} outliers" if outcome.outliers else ""


def caught(row: Row) -> str:
    """Per tamper, what it changed and ``yes`` or ``no`` (with how the run ended); ``n.a.``
    without tampered runs."""
    if not row.tampered:
        return "n.a."
    return "; ".join(
        f"{run.tamper}: {_caught(run)}"
        + (f", {row.resolved[mode]}" if mode in row.resolved else "")
        for mode, run in row.tampered.items()
    )


def _caught(run: RunOutcome) -> str:
    if run.status == "poisoned":
        return "yes"
    if run.status == "closed":
        return f"no (closed cleanly; worst margin {_number(run.worst_margin)}{_outliers(run)})"
    return f"no: error: {run.message}"


def green(row: Row, modes: tuple[Mode, ...] | None = None) -> bool:
    """Whether the entry passed honestly and the tampers ``modes`` (all of its own by
    default; those it does not run are ignored) were caught."""
    runs = [run for mode, run in row.tampered.items() if modes is None or mode in modes]
    return (
        row.honest.status == "closed"
        and bool(runs)
        and all(run.status == "poisoned" for run in runs)
    )


def summary(rows: list[Row]) -> str:
    """How many entries are green (:func:`green`) with the update tamper and with every
    tamper, in f32 and in narrower compute dtypes, and how many honest runs raised a false
    alarm."""
    groups = [
        (label, [row for row in rows if (row.entry.precision != "f32") == narrow])
        for label, narrow in (("f32", False), ("bf16/f16", True))
    ]
    groups = [(label, group) for label, group in groups if group]

    def count(modes: tuple[Mode, ...] | None) -> str:
        return ", ".join(
            f"{sum(green(row, modes) for row in group)} of {len(group)} in {label}"
            for label, group in groups
        )

    alarms = sum(row.honest.status == "poisoned" for row in rows)
    return (
        f"Honest pass and the update tamper caught: {count(('update',))}; "
        f"and every tamper caught: {count(None)}. "
        f"False alarms: {alarms} of {len(rows)} honest runs."
    )


def _number(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "-"
    return "inf" if value == float("inf") else f"{value:.{digits}g}"


def table(rows: list[Row]) -> str:
    """The markdown table of ``rows``."""
    lines = [
        "| entry | framework | precision | honest | worst honest margin | tampers caught "
        "| s/step | first step s | close s | recipe |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    audited = any(row.audit is not None for row in rows)
    if audited:
        caught_column = " | tampers caught "
        lines[0] = lines[0].replace(caught_column, " | audit of every step" + caught_column)
        lines[1] += " --- |"
    for row in rows:
        honest = row.honest
        first = honest.step_seconds[0] if honest.step_seconds else None
        cells = [
            row.entry.name,
            row.entry.framework,
            row.entry.precision,
            verdict(row),
            _number(honest.worst_margin) + _outliers(honest),
            *([row.audit or "n.a."] if audited else []),
            caught(row),
            _number(RunOutcome.median_step(honest.step_seconds)),
            _number(first),
            _number(honest.close_seconds if honest.status == "closed" else None),
            row.entry.notes,
        ]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def page(rows: list[Row], steps: int, seconds: float, planned: int | None = None) -> str:
    """``docs/zoo.md``: the introduction, how the table was made, the table. ``planned``:
    the number of entries of a run still in progress."""
    progress = "" if planned is None else f" (run in progress: {len(rows)} of {planned})"
    return (
        INTRO + f"\n## Results\n\n{steps} steps per run; {len(rows)} entries in {seconds / 60:.1f} "
        f"minutes{progress}; {_versions()}. {summary(rows)}\n\n" + table(rows) + "\n"
    )


def _versions() -> str:
    names = ["torch", "torchvision", "transformers", "jax", "flax", "optax"]
    found = []
    for name in names:
        try:
            from importlib.metadata import version

            found.append(f"{name} {version(name)}")
        except Exception:  # a missing library is simply not listed
            continue
    return ", ".join(found)


def select(args: Any) -> list[Entry]:
    """The entries ``--only`` or ``--ci`` name, else all of them."""
    if args.only:
        unknown = [name for name in args.only if name not in BY_NAME]
        if unknown:
            raise SystemExit(f"unknown entries: {', '.join(unknown)} (known: {sorted(BY_NAME)})")
        return [BY_NAME[name] for name in args.only]
    if args.ci:
        return [entry for entry in ENTRIES if entry.ci]
    return list(ENTRIES)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ci", action="store_true", help="the CI subset, without sealing")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="run these entries only")
    parser.add_argument("--steps", type=int, default=None, help="steps per run (default 4; CI 3)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per run")
    parser.add_argument("--write", type=Path, help="write the page here too")
    parser.add_argument("--list", action="store_true", help="list the entries and exit")
    parser.add_argument(
        "--resolve",
        action="store_true",
        help="retry a missed tamper at x2, x4, x8 and x16 until one is caught",
    )
    parser.add_argument(
        "--audit",
        action="store_true",
        help="retain the honest runs' evidence and audit every step (zkdv audit --fraction 1)",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="work in DIR and keep it (transcripts, with --audit the honest runs' evidence)",
    )
    args = parser.parse_args()
    if args.list:
        for entry in ENTRIES:
            print(f"{entry.name:28} {entry.framework:6} {'ci' if entry.ci else '  '} {entry.notes}")
        return
    entries = select(args)
    steps = args.steps or (3 if args.ci else 4)
    timeout = args.timeout or (240.0 if args.ci else 600.0)
    seal = not args.ci
    targets = [args.write] if args.write else []
    if not args.ci and not args.only:
        targets.append(ROOT / "docs" / "zoo.md")
    rows: list[Row] = []
    start = time.perf_counter()
    if args.keep is not None:
        if args.keep.exists() and any(args.keep.iterdir()):
            parser.error(f"--keep {args.keep}: not empty (a run's transcripts go in a new one)")
        args.keep.mkdir(parents=True, exist_ok=True)
        work_context: contextlib.AbstractContextManager[str] = contextlib.nullcontext(
            str(args.keep)
        )
    else:
        work_context = tempfile.TemporaryDirectory(prefix="zkdv-zoo-")
    with work_context as work:
        for entry in entries:
            began = time.perf_counter()
            row = run_entry(
                entry, steps, Path(work), timeout, seal, audit=args.audit, resolve=args.resolve
            )
            rows.append(row)
            audit = f"; audit: {row.audit}" if row.audit is not None else ""
            print(
                f"{entry.name}: {verdict(row)}{audit}; tampers caught: {caught(row)} "
                f"({time.perf_counter() - began:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
            # The page so far, so an interrupted run still leaves the rows it finished.
            if len(rows) < len(entries):
                for target in targets:
                    partial = page(rows, steps, time.perf_counter() - start, len(entries))
                    target.write_text(partial)
    seconds = time.perf_counter() - start
    print(table(rows))
    print(f"\n{summary(rows)}")
    print(f"\n{len(rows)} entries in {seconds:.0f} s", file=sys.stderr)
    for target in targets:
        target.write_text(page(rows, steps, seconds))
        print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
