/*
** What a profile measures (-e): CPU samples, time blocked off CPU, or both on
** one time scale. The collector keeps a profile per event; the exports and
** the live view say which one they show, and in what unit.
*/
#ifndef LUATOP_PROFILE_EVENT_H
#define LUATOP_PROFILE_EVENT_H

enum prof_event {
	EV_CPU,			/* on-CPU samples: counts are samples */
	EV_OFFCPU,		/* time blocked in system calls: counts are nanoseconds */
	EV_WALL,		/* both: a CPU sample weighs its period; nanoseconds */
	EV__COUNT
};

/* The -e name of an event ("cpu", "offcpu", "wall"); NULL if out of range. */
static inline const char *prof_event__name(enum prof_event e)
{
	static const char *const names[EV__COUNT] = { "cpu", "offcpu", "wall" };

	return (unsigned)e < EV__COUNT ? names[e] : NULL;
}

/* Whether the counts of event e are nanoseconds (else samples). */
static inline int prof_event__timed(enum prof_event e)
{
	return e == EV_OFFCPU || e == EV_WALL;
}

#endif
