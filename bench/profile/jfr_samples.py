"""Reads the text of `jfr print --events jdk.ExecutionSample` into samples: dicts with the sampled
thread's name and its stack frames, innermost first, as printed. Shared by jfr_stages.py and
jfr_frames.py."""


def read_samples(path):
    samples = []
    cur = None
    frames = None
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('jdk.ExecutionSample'):
            cur = {'thread': '', 'frames': []}
        elif cur is not None and 'sampledThread' in line:
            cur['thread'] = line.split('=', 1)[1].strip()
        elif cur is not None and line.strip() == 'stackTrace = [':
            frames = cur['frames']
        elif frames is not None and line.strip() == ']':
            samples.append(cur)
            frames = None
            cur = None
        elif frames is not None:
            frames.append(line.strip())
    return samples
