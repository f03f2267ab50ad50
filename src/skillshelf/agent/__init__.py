"""skillshelf.agent"""
