//! State a runner keeps per GPU between calls (the flagship SGEMM's stream-K workspace, say). It
//! lives in the [`Gpu`](super::Gpu), so that its device memory is freed before the context, but
//! its type and its rules belong to the runner: the driver layer names none of those types.
use std::{any::Any, cell::RefCell, rc::Rc};

/// One value per type, made on first use.
#[derive(Default)]
pub(crate) struct RunnerState(RefCell<Vec<Rc<dyn Any>>>);

impl RunnerState {
    /// The value of type `T`, made with `T::default()` on first use. Callers hold the `Rc` no
    /// longer than they borrow the `Gpu` (device memory in it must go before the context).
    pub(crate) fn get<T: Default + 'static>(&self) -> Rc<T> {
        let mut all = self.0.borrow_mut();
        if let Some(found) = all.iter().find_map(|s| s.clone().downcast::<T>().ok()) {
            return found;
        }
        let made = Rc::new(T::default());
        all.push(made.clone());
        made
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_type() {
        let state = RunnerState::default();
        let a = state.get::<RefCell<u32>>();
        *a.borrow_mut() = 7;
        assert_eq!(*state.get::<RefCell<u32>>().borrow(), 7);
        assert_eq!(*state.get::<RefCell<u64>>().borrow(), 0);
        assert!(Rc::ptr_eq(&a, &state.get::<RefCell<u32>>()));
    }
}
